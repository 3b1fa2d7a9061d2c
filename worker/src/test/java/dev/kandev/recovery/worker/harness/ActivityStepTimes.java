package dev.kandev.recovery.worker.harness;

import com.google.protobuf.Timestamp;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
  public static final String WORKFLOW_TASK_WAITS = "(of them: scheduled to started)";

  private final Map<String, Latencies> byType = new LinkedHashMap<>();
  private final Latencies wholeRun = new Latencies();
  private final Latencies workflowTasks = new Latencies();
  private final Latencies workflowTaskWaits = new Latencies();
  private final List<Integer> events = new ArrayList<>();
  private final List<Integer> historyBytes = new ArrayList<>();

  public void addRun(WorkflowClient client, String workflowId, String runId) {
    Map<Long, HistoryEvent> scheduled = new HashMap<>();
    HistoryEvent started = null;
    long workflowTaskNanos = 0;
    long workflowTaskWaitNanos = 0;
    List<HistoryEvent> history = client.fetchHistory(workflowId, runId).getEvents();
    events.add(history.size());
    historyBytes.add(history.stream().mapToInt(HistoryEvent::getSerializedSize).sum());
    for (HistoryEvent event : history) {
      if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
        started = event;
      } else if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) {
        wholeRun.add(nanos(event.getEventTime()) - nanos(started.getEventTime()));
        workflowTasks.add(workflowTaskNanos);
        workflowTaskWaits.add(workflowTaskWaitNanos);
      } else if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) {
        scheduled.put(event.getEventId(), event);
      } else if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
        HistoryEvent start = scheduled.get(event.getWorkflowTaskStartedEventAttributes().getScheduledEventId());
        workflowTaskWaitNanos += nanos(event.getEventTime()) - nanos(start.getEventTime());
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

  /** Activity types in the order they first ran, then {@link #WORKFLOW_TASKS}, {@link #WORKFLOW_TASK_WAITS} and {@link #WHOLE_RUN}. */
  public Map<String, Latencies> byType() {
    Map<String, Latencies> all = new LinkedHashMap<>(byType);
    all.put(WORKFLOW_TASKS, workflowTasks);
    all.put(WORKFLOW_TASK_WAITS, workflowTaskWaits);
    all.put(WHOLE_RUN, wholeRun);
    return all;
  }

  /** Each recorded run's number of history events, in the order recorded. */
  public List<Integer> eventsPerRun() {
    return List.copyOf(events);
  }

  /** Each recorded run's history size, its events serialized (protobuf bytes). */
  public List<Integer> historyBytesPerRun() {
    return List.copyOf(historyBytes);
  }

  private static long nanos(Timestamp time) {
    return time.getSeconds() * 1_000_000_000L + time.getNanos();
  }
}
