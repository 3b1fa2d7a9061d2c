package dev.kandev.recovery.workflows.runtime;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Updates one built-in managed npm agent runtime: update; only on failure one targeted {@code _npx}
 * repair and one more update; then the ACP probe. Workflow id {@code runtime-update-<agentId>}.
 */
@WorkflowInterface
public interface RuntimeUpdateWorkflow {
  String TYPE = "RuntimeUpdateWorkflow";
  String PROGRESS_QUERY = "progress";

  static String workflowId(String agentId) {
    return "runtime-update-" + agentId;
  }

  /** Returns the SUCCEEDED result, or fails with a non-retryable ApplicationFailure carrying the FAILED one. */
  @WorkflowMethod(name = TYPE)
  RuntimeUpdateResult update(RuntimeUpdateRequest request);

  @QueryMethod(name = PROGRESS_QUERY)
  RuntimeUpdateProgress progress();
}
