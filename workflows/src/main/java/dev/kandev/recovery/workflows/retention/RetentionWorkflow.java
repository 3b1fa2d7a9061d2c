package dev.kandev.recovery.workflows.retention;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Deletes what the only-growing tables no longer need, batch by batch; a Temporal Schedule runs it
 * ({@code kandev-retention-<task queue>}, paused and triggered in the Web UI).
 */
@WorkflowInterface
public interface RetentionWorkflow {
  @WorkflowMethod
  RetentionResult prune(RetentionPolicy policy);
}
