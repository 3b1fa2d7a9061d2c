package dev.kandev.recovery.worker.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.chaos.ChaosChecker.Invariant;
import dev.kandev.recovery.worker.chaos.ChaosChecker.Problem;
import dev.kandev.recovery.worker.chaos.ChaosHistory.FaultEvent;
import dev.kandev.recovery.worker.chaos.ChaosHistory.OpRecord;
import io.temporal.api.common.v1.ActivityType;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.ActivityTaskCompletedEventAttributes;
import io.temporal.api.history.v1.ActivityTaskScheduledEventAttributes;
import io.temporal.api.history.v1.History;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.MarkerRecordedEventAttributes;
import io.temporal.api.history.v1.WorkflowExecutionStartedEventAttributes;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker's promised forms of a CANCELED run (docs/contract.md, "Stopping a resume"). */
class ChaosCheckerTest {
  @Test
  void aCanceledRunIsPromisedOnlyAsCancelledOrAsResumedAfterItsSettle() {
    assertThat(ChaosChecker.cancelledRunProblem("CANCELLED", false)).isEmpty();
    assertThat(ChaosChecker.cancelledRunProblem("RESUMED", true)).isEmpty();
    assertThat(ChaosChecker.cancelledRunProblem("STARTED_FRESH", true)).isEmpty();

    assertThat(ChaosChecker.cancelledRunProblem("RESUMED", false)).map(Problem::invariant)
        .contains(Invariant.PROMISED_OUTCOME);
    assertThat(ChaosChecker.cancelledRunProblem("FAILED", false)).map(Problem::invariant)
        .contains(Invariant.OUTCOME_LISTED);
    assertThat(ChaosChecker.cancelledRunProblem("FAILED", true)).map(Problem::invariant)
        .contains(Invariant.OUTCOME_LISTED);
    assertThat(ChaosChecker.cancelledRunProblem(null, false)).map(Problem::invariant)
        .contains(Invariant.OUTCOME_LISTED);
  }

  @Test
  void aSettleCountsOnlyOnceItCompleted() {
    assertThat(ChaosChecker.settleCompleted(history(localMarker("SettleSession", false)))).isTrue();
    assertThat(ChaosChecker.settleCompleted(history(localMarker("SettleSession", true)))).isFalse();
    assertThat(ChaosChecker.settleCompleted(history(localMarker("MarkStarting", false)))).isFalse();
    assertThat(ChaosChecker.settleCompleted(history(scheduled(5, "SettleSession")))).isFalse();
    assertThat(ChaosChecker.settleCompleted(history(scheduled(5, "SettleSession"), completed(5)))).isTrue();
    assertThat(ChaosChecker.settleCompleted(history(scheduled(5, "LaunchAgent"), completed(5)))).isFalse();
  }

  @Test
  void aStoreExceptionIsPromisedOnlyWhenPostgresRestartedDuringItsOperation() {
    String store = "dev.kandev.recovery.activities.store.StoreException";
    List<OpRecord> op = List.of(op(190_000, 199_000));
    FaultEvent restart = new FaultEvent(194_800, 43, "PostgreSQL restart -m fast");
    assertThat(ChaosChecker.storeOutage(store, op, List.of(restart))).isTrue();
    assertThat(ChaosChecker.storeOutage(store, op, List.of(new FaultEvent(189_500, 43, "PostgreSQL restart -m immediate"))))
        .isTrue();
    assertThat(ChaosChecker.storeOutage(store, op, List.of(new FaultEvent(150_000, 40, "PostgreSQL restart -m fast"))))
        .as("a restart long before the operation").isFalse();
    assertThat(ChaosChecker.storeOutage(store, op, List.of(new FaultEvent(194_800, 44, "GitHub refuses the next token request 403"))))
        .isFalse();
    assertThat(ChaosChecker.storeOutage(store, List.of(), List.of(restart))).as("a run no operation started").isFalse();
    assertThat(ChaosChecker.storeOutage("java.lang.IllegalStateException", op, List.of(restart))).isFalse();
  }

  private static OpRecord op(long startedMs, long endedMs) {
    return new OpRecord(null, "", "run", null, startedMs, endedMs, null, null, null, false, "");
  }

  private static WorkflowExecutionHistory history(HistoryEvent... events) {
    HistoryEvent started = HistoryEvent.newBuilder().setEventId(1).setEventType(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)
        .setWorkflowExecutionStartedEventAttributes(WorkflowExecutionStartedEventAttributes.getDefaultInstance()).build();
    return new WorkflowExecutionHistory(History.newBuilder().addEvents(started).addAllEvents(List.of(events)).build());
  }

  private static HistoryEvent localMarker(String type, boolean failed) {
    Payloads name = DefaultDataConverter.STANDARD_INSTANCE.toPayloads(type).orElseThrow();
    MarkerRecordedEventAttributes.Builder marker = MarkerRecordedEventAttributes.newBuilder()
        .setMarkerName("LocalActivity").putDetails("type", name);
    if (failed) {
      marker.setFailure(Failure.newBuilder().setMessage("settle failed"));
    }
    return HistoryEvent.newBuilder().setEventId(9).setEventType(EventType.EVENT_TYPE_MARKER_RECORDED)
        .setMarkerRecordedEventAttributes(marker).build();
  }

  private static HistoryEvent scheduled(long id, String type) {
    return HistoryEvent.newBuilder().setEventId(id).setEventType(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .setActivityTaskScheduledEventAttributes(ActivityTaskScheduledEventAttributes.newBuilder()
            .setActivityType(ActivityType.newBuilder().setName(type))).build();
  }

  private static HistoryEvent completed(long scheduledId) {
    return HistoryEvent.newBuilder().setEventId(scheduledId + 2).setEventType(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)
        .setActivityTaskCompletedEventAttributes(ActivityTaskCompletedEventAttributes.newBuilder()
            .setScheduledEventId(scheduledId)).build();
  }
}
