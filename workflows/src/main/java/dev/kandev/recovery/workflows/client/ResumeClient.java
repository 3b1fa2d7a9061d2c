package dev.kandev.recovery.workflows.client;

import static dev.kandev.recovery.workflows.RecoverySearchAttributes.OUTCOME;
import static dev.kandev.recovery.workflows.RecoverySearchAttributes.SESSION_ID;
import static dev.kandev.recovery.workflows.RecoverySearchAttributes.TASK_ID;

import dev.kandev.recovery.workflows.RecoveryIds;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributes;
import java.util.List;
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

  /** @throws InvalidRequestException if the session id breaks {@link RecoveryIds}; nothing was started */
  public ResumeHandle start(ResumeRequest request) {
    RecoveryIds.problem("sessionId", request.sessionId()).ifPresent(problem -> {
      throw new InvalidRequestException(problem);
    });
    String workflowId = ResumeRequest.workflowId(request.sessionId());
    WorkflowOptions options =
        WorkflowOptions.newBuilder()
            .setTaskQueue(taskQueue)
            .setWorkflowId(workflowId)
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
            .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
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
    return handle(ResumeRequest.workflowId(sessionId), runId);
  }

  private ResumeHandle handle(String workflowId, String runId) {
    return new ResumeHandle(client.newUntypedWorkflowStub(
        workflowId, Optional.ofNullable(runId), Optional.of(ResumeSessionWorkflow.TYPE)));
  }

  /**
   * The resumes the filter selects, newest first, at most {@code limit}: from Temporal's visibility
   * store (it lags a write by up to a second). The step of a running resume comes from its progress
   * query, that of a failed one from its failure.
   */
  public List<ResumeSummary> list(ResumeFilter filter, int limit) {
    return client.listExecutions(filter.query()).limit(limit).map(this::summarize).toList();
  }

  private ResumeSummary summarize(WorkflowExecutionMetadata run) {
    SearchAttributes attributes = run.getTypedSearchAttributes();
    String status = run.getStatus().name().replace("WORKFLOW_EXECUTION_STATUS_", "");
    String sessionId = attributes.get(SESSION_ID);
    ResumeHandle handle = handle(run.getExecution().getWorkflowId(), run.getExecution().getRunId());
    return new ResumeSummary(run.getExecution().getWorkflowId(), run.getExecution().getRunId(), status, sessionId,
        attributes.get(TASK_ID), attributes.get(OUTCOME), step(handle, run.getStatus()), run.getStartTime(),
        run.getCloseTime());
  }

  private static String step(ResumeHandle handle, WorkflowExecutionStatus status) {
    try {
      return switch (status) {
        case WORKFLOW_EXECUTION_STATUS_RUNNING -> handle.progress().step().name();
        case WORKFLOW_EXECUTION_STATUS_COMPLETED -> ResumeStep.DONE.name();
        case WORKFLOW_EXECUTION_STATUS_FAILED -> handle.failure().map(f -> f.step().name()).orElse(null);
        default -> null;
      };
    } catch (RuntimeException e) {
      return null; // a running resume whose first workflow task has not run yet
    }
  }

  private static String summary(ResumeRequest request) {
    return (request.mode() == ResumeMode.START_FRESH ? "Start fresh" : "Resume") + " session " + request.sessionId()
        + " (" + request.reason() + (request.requestedBy().isEmpty() ? "" : ", " + request.requestedBy()) + ")";
  }
}
