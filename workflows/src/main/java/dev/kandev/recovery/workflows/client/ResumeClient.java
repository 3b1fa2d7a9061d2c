package dev.kandev.recovery.workflows.client;

import static dev.kandev.recovery.workflows.RecoverySearchAttributes.SESSION_ID;

import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributes;
import java.util.Map;
import java.util.Optional;

/**
 * Starts {@code ResumeSessionWorkflow} the way every starter must: workflow id {@code
 * resume-session-<sessionId>}, so one resume per session runs at a time. A second request while one
 * runs attaches to it if it asks for the same mode, and is refused with {@link
 * ResumeConflictException} if it asks for the other one.
 */
public final class ResumeClient {
  private final WorkflowClient client;
  private final String taskQueue;

  public ResumeClient(WorkflowClient client, String taskQueue) {
    this.client = client;
    this.taskQueue = taskQueue;
  }

  public ResumeHandle start(ResumeRequest request) {
    if (request.sessionId() == null || request.sessionId().isBlank()) {
      throw new IllegalArgumentException("a resume needs a session id");
    }
    String workflowId = ResumeRequest.workflowId(request.sessionId());
    WorkflowOptions options =
        WorkflowOptions.newBuilder()
            .setTaskQueue(taskQueue)
            .setWorkflowId(workflowId)
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
            .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
            .setTypedSearchAttributes(SearchAttributes.newBuilder().set(SESSION_ID, request.sessionId()).build())
            .setMemo(Map.of("mode", request.mode().name(), "reason", request.reason(), "requestedBy", request.requestedBy()))
            .setStaticSummary(summary(request))
            .build();
    ResumeSessionWorkflow workflow = client.newWorkflowStub(ResumeSessionWorkflow.class, options);
    WorkflowExecution execution = WorkflowClient.start(workflow::resume, request);
    ResumeHandle handle = attach(request.sessionId(), execution.getRunId());
    Optional<ResumeMode> otherMode = handle.mode().filter(running -> running != request.mode());
    if (otherMode.isPresent()) {
      throw new ResumeConflictException(request.sessionId(), otherMode.get(), request.mode(), execution.getRunId());
    }
    return handle;
  }

  /** The resume of {@code sessionId} with that run id (null: the latest run). */
  public ResumeHandle attach(String sessionId, String runId) {
    WorkflowStub stub = client.newUntypedWorkflowStub(
        ResumeRequest.workflowId(sessionId), Optional.ofNullable(runId), Optional.of(ResumeSessionWorkflow.TYPE));
    return new ResumeHandle(stub);
  }

  private static String summary(ResumeRequest request) {
    return (request.mode() == ResumeMode.START_FRESH ? "Start fresh" : "Resume") + " session " + request.sessionId()
        + " (" + request.reason() + (request.requestedBy().isEmpty() ? "" : ", " + request.requestedBy()) + ")";
  }
}
