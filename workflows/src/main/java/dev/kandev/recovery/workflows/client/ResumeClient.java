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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@code ResumeSessionWorkflow} the way every starter must: workflow id {@code
 * resume-session-<sessionId>}, so one resume per session runs at a time. A second request while one
 * runs attaches to it if it asks for the same mode, and is refused with {@link
 * ResumeConflictException} if it asks for the other one.
 */
public final class ResumeClient {
  /** How long {@link #list} waits for the steps of running resumes. */
  public static final Duration STEP_WAIT = Duration.ofSeconds(3);
  private static final ThreadFactory STEP_LOOKUP_THREADS = lookup -> {
    Thread thread = new Thread(lookup, "resume-step-lookup");
    thread.setDaemon(true); // one still waiting for its answer must not keep a CLI's JVM alive
    return thread;
  };

  private final WorkflowClient client;
  private final String taskQueue;
  private final boolean eager;

  public ResumeClient(WorkflowClient client, String taskQueue) {
    this(client, taskQueue, false);
  }

  private ResumeClient(WorkflowClient client, String taskQueue, boolean eager) {
    this.client = client;
    this.taskQueue = taskQueue;
    this.eager = eager;
  }

  /**
   * The same starter asking for eager start: when {@code client} is the one a started worker of the
   * task queue runs on, the server hands the run's first workflow task back in the start's answer and
   * that worker runs it at once, one server round trip fewer. Ids, conflict and reuse policies are
   * the same; a start that attaches to a running resume gets no task (the reserved slot is returned).
   * Not for versioned workers: an eager run skips the server's routing to the current version.
   */
  public ResumeClient startingEagerly() {
    return new ResumeClient(client, taskQueue, true);
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
            .setDisableEagerExecution(!eager)
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
   * query, asked of all of them at once and waited for at most {@link #STEP_WAIT} (a run no worker
   * polls for, or whose workers are all down, cannot answer: its step stays unknown), that of a
   * failed one from its failure.
   */
  public List<ResumeSummary> list(ResumeFilter filter, int limit) {
    List<WorkflowExecutionMetadata> runs = client.listExecutions(filter.query()).limit(limit).toList();
    ExecutorService lookups = Executors.newCachedThreadPool(STEP_LOOKUP_THREADS);
    try {
      List<CompletableFuture<String>> steps = runs.stream()
          .map(run -> CompletableFuture.supplyAsync(() -> step(handle(run), run.getStatus()), lookups)
              .completeOnTimeout(null, STEP_WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .toList();
      List<ResumeSummary> summaries = new ArrayList<>();
      for (int i = 0; i < runs.size(); i++) {
        summaries.add(summarize(runs.get(i), steps.get(i).join()));
      }
      return summaries;
    } finally {
      lookups.shutdownNow();
    }
  }

  private ResumeHandle handle(WorkflowExecutionMetadata run) {
    return handle(run.getExecution().getWorkflowId(), run.getExecution().getRunId());
  }

  private static ResumeSummary summarize(WorkflowExecutionMetadata run, String step) {
    SearchAttributes attributes = run.getTypedSearchAttributes();
    String status = run.getStatus().name().replace("WORKFLOW_EXECUTION_STATUS_", "");
    return new ResumeSummary(run.getExecution().getWorkflowId(), run.getExecution().getRunId(), status,
        attributes.get(SESSION_ID), attributes.get(TASK_ID), attributes.get(OUTCOME), step, run.getStartTime(),
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
