package dev.kandev.recovery.workflows.resume;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Resumes (or, on the user's explicit choice, starts fresh) one task session. Workflow id {@code
 * resume-session-<sessionId>}; fails with an {@code ApplicationFailure} whose details are a {@link
 * ResumeFailure} after restoring the session's prior recoverable state.
 */
@WorkflowInterface
public interface ResumeSessionWorkflow {
  String TYPE = "ResumeSessionWorkflow";

  @WorkflowMethod(name = TYPE)
  ResumeResult resume(ResumeRequest request);

  @QueryMethod(name = "progress")
  ResumeProgress progress();
}
