package dev.kandev.recovery.workflows.runtime;

import dev.kandev.recovery.workflows.FailureType;
import java.util.List;

/**
 * Result of {@code RuntimeUpdateWorkflow}. A SUCCEEDED result is the workflow's return value; a
 * FAILED one travels as the details of the workflow's terminal {@code ApplicationFailure}, so the
 * execution shows as Failed in the Web UI and a starter still gets the whole record.
 *
 * @param attempts update command runs (1 or 2)
 * @param repaired whether the targeted {@code _npx} repair removed the package's tree
 * @param repair what the repair did ({@link RepairResult#NOT_RUN} if it did not run)
 * @param errorType stable failure type ({@link FailureType}), empty on success
 * @param probe the ACP {@code initialize} answer, null unless the probe passed
 */
public record RuntimeUpdateResult(
    String jobId,
    String agentId,
    String packageSpec,
    RuntimeUpdateStatus status,
    int attempts,
    boolean repaired,
    RepairResult repair,
    List<String> progress,
    String error,
    String errorType,
    ProbeInfo probe) {
  public RuntimeUpdateResult {
    repair = repair == null ? RepairResult.NOT_RUN : repair;
    progress = List.copyOf(progress);
    error = error == null ? "" : error;
    errorType = errorType == null ? "" : errorType;
  }
}
