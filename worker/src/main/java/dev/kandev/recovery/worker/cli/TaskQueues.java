package dev.kandev.recovery.worker.cli;

import com.google.protobuf.util.Timestamps;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.workflow.Functions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What the server knows about who takes a resume's tasks: whether a worker polls a task queue
 * (DescribeTaskQueue's pollers), the launch queue a resume's launch waits on, whether any worker
 * ever took a run. Every call is bounded ({@link #CALL}); a server that does not say (an older or an
 * in-memory one, a slow answer) gives an empty answer, never a wait.
 */
class TaskQueues {
  /** Nothing known: what the CLI uses against a server it does not ask (the SDK's test server in tests). */
  static final TaskQueues UNKNOWN = new TaskQueues(null, null);
  private static final Duration CALL = Duration.ofSeconds(5);
  /** A poller seen longer ago than a long poll lasts (about 70 s) plus slack is no longer polling. */
  private static final Duration POLLED_WITHIN = Duration.ofSeconds(90);

  private final WorkflowServiceStubs service;
  private final String namespace;

  TaskQueues(WorkflowServiceStubs service, String namespace) {
    this.service = service;
    this.namespace = namespace;
  }

  /** Whether a worker polls {@code queue} for workflow tasks or, with {@code activities}, for activity tasks. */
  Optional<Boolean> polled(String queue, boolean activities) {
    return ask(() -> service.blockingStub().withDeadlineAfter(CALL.toMillis(), TimeUnit.MILLISECONDS)
        .describeTaskQueue(DescribeTaskQueueRequest.newBuilder().setNamespace(namespace)
            .setTaskQueue(TaskQueue.newBuilder().setName(queue))
            .setTaskQueueType(activities ? TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY : TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
            .build())
        .getPollersList().stream()
        .anyMatch(p -> !p.hasLastAccessTime()
            || System.currentTimeMillis() - Timestamps.toMillis(p.getLastAccessTime()) < POLLED_WITHIN.toMillis()));
  }

  /** The queue of the run's launch that no worker has taken yet, if it waits on one. */
  Optional<String> waitingLaunchQueue(WorkflowExecution run) {
    return ask(() -> service.blockingStub().withDeadlineAfter(CALL.toMillis(), TimeUnit.MILLISECONDS)
        .describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder().setNamespace(namespace)
            .setExecution(run).build())
        .getPendingActivitiesList().stream()
        .filter(a -> a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED)
        .map(PendingActivityInfo::getActivityOptions)
        .map(options -> options.getTaskQueue().getName())
        .filter(queue -> queue.endsWith("/launch"))
        .findFirst()).flatMap(queue -> queue);
  }

  /** Whether a worker ever completed a workflow task of the run: until then it did nothing there is to undo. */
  Optional<Boolean> everTaken(WorkflowExecution run) {
    return ask(() -> service.blockingStub().withDeadlineAfter(CALL.toMillis(), TimeUnit.MILLISECONDS)
        .getWorkflowExecutionHistory(GetWorkflowExecutionHistoryRequest.newBuilder().setNamespace(namespace)
            .setExecution(run).build())
        .getHistory().getEventsList().stream()
        .anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED));
  }

  private <T> Optional<T> ask(Functions.Func<T> call) {
    if (service == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(call.apply());
    } catch (StatusRuntimeException e) {
      return Optional.empty();
    }
  }
}
