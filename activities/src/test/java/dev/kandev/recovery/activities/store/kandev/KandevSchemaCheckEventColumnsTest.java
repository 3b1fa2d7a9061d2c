package dev.kandev.recovery.activities.store.kandev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.KandevSchemaCheck;
import dev.kandev.recovery.activities.store.KandevSchemaMismatchException;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.SessionState;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With KANDEV_NATS_URL set, each transition on Kandev's tables reads its session and task rows for
 * Kandev's events in its own transaction: a column those reads need that is missing would fail every
 * transition (and a replay's turn and message events, every replay). So the start-up check covers
 * them: for each column of Kandev's {@code tasks}, {@code task_sessions}, {@code task_session_turns}
 * and {@code task_session_messages} (in the fixture of Kandev's schema), taking it away makes the events' read
 * fail only if the check names it too.
 */
class KandevSchemaCheckEventColumnsTest {
  @RegisterExtension final TestDatabase db = new TestDatabase(StoreLayout.Kind.KANDEV);

  @Test
  void everyColumnKandevsEventsReadIsInTheStartUpCheck() {
    Fixtures fixtures = db.fixtures();
    String k = db.layout().kandevSchema();
    fixtures.task("t1", "ws-1", "REVIEW").session("s1", "t1", "test-agent", SessionState.WAITING_FOR_INPUT, "{}");
    fixtures.exec("INSERT INTO " + k + ".task_session_turns (id, task_session_id, task_id, started_at, created_at,"
        + " updated_at) VALUES ('turn-1', 's1', 't1', now(), now(), now())");
    fixtures.exec("INSERT INTO " + k + ".task_session_messages (id, task_session_id, task_id, turn_id, content,"
        + " created_at, updated_at) VALUES ('m-1', 's1', 't1', 'turn-1', 'hello', now(), now())");
    OutboxKandevEvents events = new OutboxKandevEvents(k, Json.mapper(), Clock.systemUTC());
    List<String> readByEvents = new ArrayList<>();

    for (String table : List.of("tasks", "task_sessions", "task_session_turns", "task_session_messages")) {
      for (String column : fixtures.strings("SELECT column_name FROM information_schema.columns"
          + " WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position", k, table)) {
        fixtures.exec("ALTER TABLE " + k + "." + table + " RENAME COLUMN " + column + " TO gone_" + column);
        try {
          if (!eventsCanBeBuilt(events)) {
            readByEvents.add(table + "." + column);
            assertThat(catchThrowable(() -> KandevSchemaCheck.check(db.dataSource(), db.layout())))
                .as("the events read %s.%s: the start-up check must name it", table, column)
                .isInstanceOf(KandevSchemaMismatchException.class)
                .hasMessageStartingWith("Kandev's table " + k + "." + table + " has no column " + column + ",");
          }
        } finally {
          fixtures.exec("ALTER TABLE " + k + "." + table + " RENAME COLUMN gone_" + column + " TO " + column);
        }
      }
    }
    assertThat(readByEvents).as("the test took away columns the events read")
        .contains("task_sessions.route_generation", "tasks.queued_at", "tasks.title",
            "task_session_turns.route_generation", "task_session_messages.requests_input");
    KandevSchemaCheck.check(db.dataSource(), db.layout());
  }

  /** Whether the session's and the task's events can be built now (the outbox rows are rolled back). */
  private boolean eventsCanBeBuilt(OutboxKandevEvents events) {
    try {
      db.run((Handle h) -> {
        events.sessionStateChanged(h, "s1", "STARTING");
        events.taskStateChanged(h, "t1", "IN_PROGRESS");
        events.transcriptReplayed(h, "turn-1", List.of("m-1"));
        throw new Built();
      });
      throw new AssertionError("unreachable");
    } catch (Built built) {
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Thrown once the events were built, so their transaction rolls back. */
  private static final class Built extends RuntimeException {}
}
