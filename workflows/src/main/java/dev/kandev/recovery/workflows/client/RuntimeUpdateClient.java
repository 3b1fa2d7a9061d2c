package dev.kandev.recovery.workflows.client;

import dev.kandev.recovery.workflows.RecoveryIds;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateProgress;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateRequest;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateResult;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflow;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The typed starter of {@code RuntimeUpdateWorkflow}, used by the CLI and any Java caller.
 *
 * <p>One update per agent at a time: the workflow id is {@code runtime-update-<agentId>}, and a
 * start while one is running <em>attaches</em> to it (conflict policy USE_EXISTING), like Kandev's
 * "enqueue returns the existing job". After it closed, a start begins a new job (a retry is a new
 * job).
 */
public record RuntimeUpdateClient(WorkflowClient client, String taskQueue) {
  /** A started (or attached-to) update job. */
  public final class Job {
    private final WorkflowStub stub;
    private final WorkflowExecution execution;

    private Job(WorkflowStub stub, WorkflowExecution execution) {
      this.stub = stub;
      this.execution = execution;
    }

    public String workflowId() {
      return execution.getWorkflowId();
    }

    /** The run id, which is also the job id of the {@code runtime_update_jobs} row. */
    public String runId() {
      return execution.getRunId();
    }

    public RuntimeUpdateProgress progress() {
      return stub.query(RuntimeUpdateWorkflow.PROGRESS_QUERY, RuntimeUpdateProgress.class);
    }

    /** Waits for the outcome; a FAILED job is returned, not thrown. */
    public RuntimeUpdateResult await(Duration timeout) throws TimeoutException {
      try {
        return stub.getResult(timeout.toMillis(), TimeUnit.MILLISECONDS, RuntimeUpdateResult.class);
      } catch (WorkflowFailedException e) {
        return failedResult(e).orElseThrow(() -> e);
      }
    }

    /**
     * Polls the progress query every {@code interval} and hands each new line to {@code onLine}
     * until the run is closed, then returns the outcome.
     */
    public RuntimeUpdateResult follow(Consumer<String> onLine, Duration interval, Duration timeout)
        throws TimeoutException, InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      CompletableFuture<RuntimeUpdateResult> outcome = stub.getResultAsync(RuntimeUpdateResult.class);
      int seen = 0;
      while (true) {
        boolean closed = outcome.isDone();
        RuntimeUpdateProgress progress = progress();
        for (; seen < progress.lines().size(); seen++) {
          onLine.accept(progress.lines().get(seen));
        }
        if (closed) {
          return await(Duration.ofSeconds(10));
        }
        if (System.nanoTime() > deadline) {
          throw new TimeoutException("runtime update " + workflowId() + " still " + progress.status().wire());
        }
        try {
          outcome.get(interval.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | CancellationException notYetOrFailed) {
          // the next round reports it
        }
      }
    }
  }

  /**
   * Starts the update of {@code agentId}, or attaches to the one already running for it.
   *
   * @throws InvalidRequestException if the agent id breaks {@link RecoveryIds}; nothing was started
   */
  public Job start(String agentId, String requestedBy) {
    return start(new RuntimeUpdateRequest(agentId, requestedBy));
  }

  /**
   * Starts the update {@code request} asks for (on its host, if it names one), or attaches to the one
   * already running for its agent.
   *
   * @throws InvalidRequestException if the agent id or host breaks {@link RecoveryIds}; nothing was started
   */
  public Job start(RuntimeUpdateRequest request) {
    String agentId = request.agentId();
    String requestedBy = request.requestedBy();
    RecoveryIds.problem("agentId", agentId).ifPresent(problem -> {
      throw new InvalidRequestException(problem);
    });
    if (!request.host().isEmpty()) {
      RecoveryIds.problem("host", request.host()).ifPresent(problem -> {
        throw new InvalidRequestException(problem);
      });
    }
    String workflowId = RuntimeUpdateWorkflow.workflowId(agentId);
    WorkflowOptions options =
        WorkflowOptions.newBuilder()
            .setWorkflowId(workflowId)
            .setTaskQueue(taskQueue)
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
            .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
            .setWorkflowExecutionTimeout(Duration.ofMinutes(30))
            .setStaticSummary("Update the managed npm runtime of " + agentId + " (requested by " + requestedBy + ")")
            .build();
    WorkflowStub stub = client.newUntypedWorkflowStub(RuntimeUpdateWorkflow.TYPE, options);
    WorkflowExecution execution = stub.start(request);
    return new Job(client.newUntypedWorkflowStub(workflowId, Optional.of(execution.getRunId()), Optional.of(RuntimeUpdateWorkflow.TYPE)), execution);
  }

  /** The FAILED result a failed run carries as failure details. */
  static Optional<RuntimeUpdateResult> failedResult(WorkflowFailedException e) {
    if (e.getCause() instanceof ApplicationFailure failure && failure.getDetails().getSize() > 0) {
      try {
        return Optional.ofNullable(failure.getDetails().get(RuntimeUpdateResult.class));
      } catch (RuntimeException notAResult) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }
}
