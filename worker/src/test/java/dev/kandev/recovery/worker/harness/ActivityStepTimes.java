package dev.kandev.recovery.worker.harness;

import com.google.protobuf.Timestamp;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Per activity type, the time from ActivityTaskScheduled to ActivityTaskCompleted in a workflow's
 * history: queueing on the task queue plus the activity itself, as the server saw it; and the whole
 * run, WorkflowExecutionStarted to WorkflowExecutionCompleted, so the gap to the activities' sum is
 * workflow tasks.
 */
public final class ActivityStepTimes {
  public static final String WHOLE_RUN = "(whole run: started to completed)";
  public static final String WORKFLOW_TASKS = "(workflow tasks: summed per run)";

  private final Map<String, Latencies> byType = new LinkedHashMap<>();
  private final Latencies wholeRun = new Latencies();
  private final Latencies workflowTasks = new Latencies();

  public void addRun(WorkflowClient client, String workflowId, String runId) {
    Map<Long, HistoryEvent> scheduled = new HashMap<>();
    HistoryEvent started = null;
    long workflowTaskNanos = 0;
    for (HistoryEvent event : client.fetchHistory(workflowId, runId).getEvents()) {
      if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
        started = event;
      } else if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) {
        wholeRun.add(nanos(event.getEventTime()) - nanos(started.getEventTime()));
        workflowTasks.add(workflowTaskNanos);
      } else if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) {
        scheduled.put(event.getEventId(), event);
      } else if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        HistoryEvent start = scheduled.get(event.getWorkflowTaskCompletedEventAttributes().getScheduledEventId());
        workflowTaskNanos += nanos(event.getEventTime()) - nanos(start.getEventTime());
      } else if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        scheduled.put(event.getEventId(), event);
      } else if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
        HistoryEvent start = scheduled.get(event.getActivityTaskCompletedEventAttributes().getScheduledEventId());
        String type = start.getActivityTaskScheduledEventAttributes().getActivityType().getName();
        byType.computeIfAbsent(type, t -> new Latencies())
            .add(nanos(event.getEventTime()) - nanos(start.getEventTime()));
      }
    }
  }

  /** Activity types in the order they first ran, then {@link #WORKFLOW_TASKS} and {@link #WHOLE_RUN}. */
  public Map<String, Latencies> byType() {
    Map<String, Latencies> all = new LinkedHashMap<>(byType);
    all.put(WORKFLOW_TASKS, workflowTasks);
    all.put(WHOLE_RUN, wholeRun);
    return all;
  }

  private static long nanos(Timestamp time) {
    return time.getSeconds() * 1_000_000_000L + time.getNanos();
  }
}
