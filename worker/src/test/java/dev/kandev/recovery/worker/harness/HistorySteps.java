package dev.kandev.recovery.worker.harness;

import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The steps a history shows, as "ActivityType@identity" of the worker that ran them, in the order
 * they ran: an activity by the worker that started its last attempt, a local activity (marked
 * "(local)") by the worker whose completed workflow task recorded its marker.
 */
public final class HistorySteps {
  private static final String LOCAL_ACTIVITY_MARKER = "LocalActivity";

  private HistorySteps() {}

  public static List<String> of(WorkflowExecutionHistory history) {
    Map<Long, String> scheduled = new HashMap<>();
    List<String> ran = new ArrayList<>();
    String workflowTaskWorker = "";
    for (HistoryEvent event : history.getEvents()) {
      if (event.hasWorkflowTaskCompletedEventAttributes()) {
        workflowTaskWorker = event.getWorkflowTaskCompletedEventAttributes().getIdentity();
      } else if (event.hasActivityTaskScheduledEventAttributes()) {
        scheduled.put(event.getEventId(), event.getActivityTaskScheduledEventAttributes().getActivityType().getName());
      } else if (event.hasActivityTaskStartedEventAttributes()) {
        var started = event.getActivityTaskStartedEventAttributes();
        ran.add(scheduled.get(started.getScheduledEventId()) + "@" + started.getIdentity());
      } else if (event.hasMarkerRecordedEventAttributes()
          && LOCAL_ACTIVITY_MARKER.equals(event.getMarkerRecordedEventAttributes().getMarkerName())) {
        ran.add(localActivityType(event) + "@" + workflowTaskWorker + " (local)");
      }
    }
    return ran;
  }

  /** Activity types in the order they were scheduled (also those no worker ever started). */
  public static List<String> scheduledTypes(WorkflowExecutionHistory history) {
    return scheduled(history).map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName()).toList();
  }

  public static Stream<HistoryEvent> scheduled(WorkflowExecutionHistory history) {
    return history.getEvents().stream().filter(HistoryEvent::hasActivityTaskScheduledEventAttributes);
  }

  /** A local activity's type, if {@code event} is a local activity's marker. */
  public static java.util.Optional<String> localActivityTypeOf(HistoryEvent event) {
    return event.hasMarkerRecordedEventAttributes()
        && LOCAL_ACTIVITY_MARKER.equals(event.getMarkerRecordedEventAttributes().getMarkerName())
        ? java.util.Optional.of(localActivityType(event)) : java.util.Optional.empty();
  }

  /** The SDK writes the marker's "type" detail as a JSON string with the standard converter. */
  private static String localActivityType(HistoryEvent marker) {
    var type = marker.getMarkerRecordedEventAttributes().getDetailsOrThrow("type");
    return DefaultDataConverter.STANDARD_INSTANCE.fromPayloads(0, java.util.Optional.of(type), String.class, String.class);
  }
}
