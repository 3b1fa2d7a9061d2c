package dev.kandev.recovery.activities.store.kandev;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.events.KandevEnvelope;
import dev.kandev.recovery.activities.store.KandevOutboxStore;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;

/**
 * {@link KandevEventOutbox} into our outbox ({@code kandev_event_outbox}): each call reads Kandev's
 * row in the caller's transaction and appends the event(s) there, for the worker's relay to publish
 * after the commit. A row that is not there is a bug of the caller (it just wrote it) and fails the transaction.
 */
public final class OutboxKandevEvents implements KandevEventOutbox {
  private final KandevEventRows rows;
  private final KandevEventPayloads payloads;
  private final KandevEnvelope envelope;
  private final KandevOutboxStore outbox;
  private final Clock clock;

  /** Reading Kandev's tables in {@code kandevSchema}. */
  public OutboxKandevEvents(String kandevSchema, ObjectMapper json, Clock clock) {
    this.rows = new KandevEventRows(kandevSchema);
    this.payloads = new KandevEventPayloads(json);
    this.envelope = new KandevEnvelope(json);
    this.outbox = new KandevOutboxStore();
    this.clock = clock;
  }

  @Override
  public void sessionStateChanged(Handle transaction, String sessionId, String oldState) {
    KandevSessionRow row = rows.session(transaction, sessionId)
        .orElseThrow(() -> new IllegalStateException("no task session " + sessionId + " to publish the state of"));
    publish(transaction, KandevEventPayloads.SESSION_STATE_CHANGED, payloads.sessionStateChanged(row, oldState));
  }

  /** {@code task.state_changed} first, then {@code task.updated}: the order Kandev's task service publishes them in. */
  @Override
  public void taskStateChanged(Handle transaction, String taskId, String oldState) {
    KandevTaskRow row = rows.task(transaction, taskId)
        .orElseThrow(() -> new IllegalStateException("no task " + taskId + " to publish the state of"));
    publish(transaction, KandevEventPayloads.TASK_STATE_CHANGED, payloads.task(row, oldState));
    publish(transaction, KandevEventPayloads.TASK_UPDATED, payloads.task(row, null));
  }

  @Override
  public void taskUpdated(Handle transaction, String taskId) {
    KandevTaskRow row = rows.task(transaction, taskId)
        .orElseThrow(() -> new IllegalStateException("no task " + taskId + " to publish"));
    publish(transaction, KandevEventPayloads.TASK_UPDATED, payloads.task(row, null));
  }

  /**
   * The order of a turn as Kandev's task service publishes one: started, its messages in the order
   * they were added (each as {@code task-service}'s {@code message.added}), completed ({@code had_output}: an agent wrote in it).
   */
  @Override
  public void transcriptReplayed(Handle transaction, String turnId, List<String> messageIds) {
    KandevEventRows.TurnRow turn = rows.turn(transaction, turnId)
        .orElseThrow(() -> new IllegalStateException("no turn " + turnId + " to publish"));
    // The turn is inserted complete (its messages are history); Kandev's replay of a recovered
    // turn (replayRecoveredTurnEvents) publishes such a turn's start with its completed_at too.
    publish(transaction, KandevEventPayloads.TURN_STARTED, payloads.turn(turn, null));
    boolean hadOutput = false;
    for (String messageId : messageIds) {
      KandevEventRows.MessageRow message = rows.message(transaction, messageId)
          .orElseThrow(() -> new IllegalStateException("no message " + messageId + " to publish"));
      hadOutput |= "agent".equals(message.authorType());
      publish(transaction, KandevEventPayloads.MESSAGE_ADDED, payloads.message(message));
    }
    publish(transaction, KandevEventPayloads.TURN_COMPLETED, payloads.turn(turn, hadOutput));
  }

  private void publish(Handle transaction, String type, Map<String, Object> data) {
    outbox.append(transaction, envelope.wrap(type, data, clock.instant()));
  }
}
