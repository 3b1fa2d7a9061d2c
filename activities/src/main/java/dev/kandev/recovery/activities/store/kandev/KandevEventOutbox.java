package dev.kandev.recovery.activities.store.kandev;

import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * Kandev's bus events for the transitions a resume makes on Kandev's own tables. Each call runs
 * inside the transaction that made the change, after the row was written, so the event is stored
 * (in our outbox) with the change or not at all; a relay publishes it after the commit.
 */
public interface KandevEventOutbox {
  /** {@code task_session.state_changed} for the session row as the transaction sees it now. */
  void sessionStateChanged(Handle transaction, String sessionId, String oldState);

  /** {@code task.state_changed} and {@code task.updated} for the task row as the transaction sees it now. */
  void taskStateChanged(Handle transaction, String taskId, String oldState);

  /** {@code task.updated} alone for the task row as the transaction sees it now (a change of its metadata). */
  void taskUpdated(Handle transaction, String taskId);

  /**
   * For a replay that added {@code messageIds} (in order) to the session in turn {@code turnId}:
   * {@code turn.started}, {@code message.added} for each, then {@code turn.completed}.
   */
  void transcriptReplayed(Handle transaction, String turnId, List<String> messageIds);

  /** Stores nothing: no bus of Kandev's is attached. */
  KandevEventOutbox NONE =
      new KandevEventOutbox() {
        @Override
        public void sessionStateChanged(Handle transaction, String sessionId, String oldState) {}

        @Override
        public void taskStateChanged(Handle transaction, String taskId, String oldState) {}

        @Override
        public void taskUpdated(Handle transaction, String taskId) {}

        @Override
        public void transcriptReplayed(Handle transaction, String turnId, List<String> messageIds) {}
      };
}
