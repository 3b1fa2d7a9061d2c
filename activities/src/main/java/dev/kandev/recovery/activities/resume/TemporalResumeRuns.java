package dev.kandev.recovery.activities.resume;

import dev.kandev.recovery.workflows.resume.ResumeLockOwner;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.activity.Activity;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ResumeRuns} asked of Temporal through the client of the activity that asks: a run that is
 * no longer running, or that Temporal does not know (its history is past retention), has ended.
 */
public final class TemporalResumeRuns implements ResumeRuns {
  private static final Logger log = LoggerFactory.getLogger(TemporalResumeRuns.class);
  private static final long DEADLINE_SECONDS = 5;

  @Override
  public boolean hasEnded(String owner) {
    ResumeLockOwner.Run run = ResumeLockOwner.run(owner).orElse(null);
    if (run == null) {
      return false; // not a run's name: the lock's time to live decides
    }
    WorkflowClient client = Activity.getExecutionContext().getWorkflowClient();
    DescribeWorkflowExecutionRequest request = DescribeWorkflowExecutionRequest.newBuilder()
        .setNamespace(client.getOptions().getNamespace())
        .setExecution(WorkflowExecution.newBuilder().setWorkflowId(run.workflowId()).setRunId(run.runId()))
        .build();
    try {
      WorkflowExecutionStatus status = client.getWorkflowServiceStubs().blockingStub()
          .withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS)
          .describeWorkflowExecution(request).getWorkflowExecutionInfo().getStatus();
      return status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return true;
      }
      log.warn("cannot tell whether resume run {} has ended ({}); its lock stays until it is released or expires",
          owner, e.getStatus().getCode());
      return false;
    }
  }
}
