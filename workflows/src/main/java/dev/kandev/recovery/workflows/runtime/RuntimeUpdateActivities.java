package dev.kandev.recovery.workflows.runtime;

import dev.kandev.recovery.workflows.FailureType;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The steps of a runtime update. Every step takes an agent id, never a package spec or a path:
 * the implementation resolves it in its own built-in catalogue. Activity types are prefixed
 * {@code Runtime} (e.g. {@code RuntimeRunUpdate}).
 */
@ActivityInterface(namePrefix = "Runtime")
public interface RuntimeUpdateActivities {
  /** Upserts the job record ({@code runtime_update_jobs}). Safe to retry. */
  @ActivityMethod
  void saveJob(RuntimeJobSnapshot job);

  /**
   * Runs the update command once. Fails with a non-retryable {@link FailureType#RUNTIME_UPDATE_FAILED}
   * whose details are the {@link UpdateOutcome}.
   */
  @ActivityMethod
  UpdateOutcome runUpdate(UpdateStep step);

  /** Removes exactly {@code <npm cache>/_npx/<key>}; fails with {@link FailureType#RUNTIME_CACHE_REPAIR_FAILED}. */
  @ActivityMethod
  RepairOutcome repairExecutionCache(RepairStep step);

  /** ACP {@code initialize} against the launched runtime; fails with {@link FailureType#RUNTIME_PROBE_FAILED}. */
  @ActivityMethod
  ProbeInfo probeAcp(ProbeStep step);
}
