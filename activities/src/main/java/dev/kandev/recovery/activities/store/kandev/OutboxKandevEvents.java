package dev.kandev.recovery.activities.store.kandev;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.events.KandevEnvelope;
import dev.kandev.recovery.activities.store.KandevOutboxStore;
import java.time.Clock;
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

  private void publish(Handle transaction, String type, Map<String, Object> data) {
    outbox.append(transaction, envelope.wrap(type, data, clock.instant()));
  }
}
