package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowStub;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code resume SESSION --cancel}: ends the session's running resume. A run some worker took is
 * cancelled, so it undoes what it did (the session back in its prior state, the lock released)
 * before it ends; a run no worker ever took did nothing, and is terminated at once — waiting for its
 * cancellation would wait for a worker that may never come (a wrong task queue, no worker running).
 */
final class ResumeCancel {
  static final String TERMINATE_REASON = "resume --cancel: no worker ever took this run, so there was nothing to undo";

  private ResumeCancel() {}

  /** Ends the session's running resume, waiting for its outcome at most {@code timeout}. */
  static int cancel(ResumeClient client, WorkflowClient workflows, TaskQueues queues, String taskQueue, String sessionId,
      Duration timeout, PrintStream out) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String workflowId = ResumeRequest.workflowId(sessionId);
    Optional<WorkflowExecution> running = running(workflows, workflowId);
    if (running.isEmpty()) {
      out.println("no resume of session " + sessionId + " runs: nothing to cancel");
      return ExitCodes.OK;
    }
    WorkflowExecution run = running.get();
    if (!queues.everTaken(run).orElse(true)) {
      workflows.newUntypedWorkflowStub(workflowId, Optional.of(run.getRunId()), Optional.of(ResumeSessionWorkflow.TYPE))
          .terminate(TERMINATE_REASON);
      out.printf("terminated %s (run %s): no worker had taken it, so nothing was changed%n", workflowId, run.getRunId());
      return ExitCodes.OK;
    }
    ResumeHandle handle = client.attach(sessionId, run.getRunId());
    handle.cancel();
    out.printf("cancelling %s (run %s): it undoes what it did, then ends%n", workflowId, run.getRunId());
    return ResumeOutcomeWait.await(handle, deadline, timeout, out, queues, taskQueue, sessionId, ExitCodes.OK);
  }

  private static Optional<WorkflowExecution> running(WorkflowClient workflows, String workflowId) {
    WorkflowStub latest = workflows.newUntypedWorkflowStub(workflowId, Optional.empty(), Optional.empty());
    try {
      var description = latest.describe();
      return description.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
          ? Optional.of(description.getExecution())
          : Optional.empty();
    } catch (WorkflowNotFoundException e) {
      return Optional.empty();
    }
  }
}
