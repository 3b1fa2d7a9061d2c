package dev.kandev.recovery.activities.store.kandev;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.StoreException;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TranscriptMessage;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.TaskState;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stand-in for Kandev's backend, issuing Kandev's SQL as the facts give it, concurrently with
 * the store steps of a resume on Kandev's tables, 200 times: neither side loses an update.
 */
class KandevCoexistenceTest {
  private static final int ROUNDS = 200;

  @RegisterExtension final TestDatabase db = new TestDatabase(StoreLayout.Kind.KANDEV);

  @Test
  void kandevsWritersAndResumesInterleaveWithNoLostUpdateOnEitherSide() throws Exception {
    Fixtures fixtures = db.fixtures();
    KandevLayoutStores stores = KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE);
    String k = db.layout().kandevSchema();
    int kandevClaims = 0;
    for (int round = 0; round < ROUNDS; round++) {
      String session = "s" + round;
      String task = "t" + round;
      fixtures.task(task, "ws-1", "IN_PROGRESS").session(session, task, "test-agent", FAILED, "{\"plan_mode\":false}");
      CyclicBarrier start = new CyclicBarrier(2);
      int r = round;
      CompletableFuture<Void> resume = CompletableFuture.runAsync(() -> {
        await(start);
        resumeSteps(stores, session, "acp-" + r);
      });
      CompletableFuture<Boolean> kandev = CompletableFuture.supplyAsync(() -> {
        await(start);
        return kandevWrites(k, session, task, r);
      });
      resume.get(60, TimeUnit.SECONDS);
      boolean claimed = kandev.get(60, TimeUnit.SECONDS);
      kandevClaims += claimed ? 1 : 0;

      // Ours: the snapshot, the token and its mirror, the settle, the replayed message. Kandev's: its
      // metadata key, its prompt, and its claim if it found the session settled.
      assertThat(fixtures.string("SELECT (metadata::jsonb ->> 'context_window') || '/'"
              + " || (metadata::jsonb -> 'git_credential_snapshot' ->> 'policy') || '/'"
              + " || (metadata::jsonb -> 'acp' ->> 'session_id') || '/' || (metadata::jsonb ->> 'plan_mode')"
              + " FROM task_sessions WHERE id = ?", session))
          .as("round %d metadata", round)
          .isEqualTo(round + "/none/acp-" + round + "/false");
      assertThat(fixtures.string("SELECT resume_token FROM executors_running WHERE session_id = ?", session))
          .isEqualTo("acp-" + round);
      assertThat(fixtures.string("SELECT s.state || '/' || t.state FROM task_sessions s JOIN tasks t ON t.id = s.task_id"
              + " WHERE s.id = ?", session))
          .as("round %d states", round)
          .isEqualTo((claimed ? "RUNNING" : "WAITING_FOR_INPUT") + "/REVIEW");
      assertThat(fixtures.strings("SELECT author_type || ':' || content FROM task_session_messages"
              + " WHERE task_session_id = ? ORDER BY author_type", session))
          .containsExactly("agent:replayed " + round, "user:prompt " + round);
    }
    System.out.printf("KandevCoexistenceTest: Kandev's claim found the session settled in %d of %d rounds%n",
        kandevClaims, ROUNDS);
  }

  /** A resume's store steps on Kandev's tables, each its own short transaction, retried as an activity is. */
  private void resumeSteps(KandevLayoutStores stores, String session, String token) {
    Transactions tx = db.transactions();
    ResumeLockStore locks = new ResumeLockStore();
    Fence fence = retried(() -> tx.inTransaction("lock", h -> locks.acquire(h, session, "resume", Duration.ofMinutes(1))
        .orElseThrow().fence()));
    retried(() -> tx.inTransaction("starting", h -> stores.sessions().transition(h, session, Set.of(FAILED), STARTING,
        "resume", "", fence)));
    retried(() -> tx.inTransaction("snapshot", h -> {
      stores.sessions().keepCredentialSnapshotBeforeResume(h, session, fence);
      return stores.sessions().writeMetadataEntry(h, session, "git_credential_snapshot",
          JsonNodeFactory.instance.objectNode().put("policy", "none"), Set.of(STARTING), fence);
    }));
    retried(() -> tx.inTransaction("token", h -> {
      stores.identities().replaceAfterNewSession(h, session, token, fence);
      return null;
    }));
    retried(() -> tx.inTransaction("replay", h -> stores.transcript().recordReplay(h, session,
        List.of(new TranscriptMessage("agent", "replayed " + session.substring(1), "m-" + session)))));
    retried(() -> tx.inTransaction("settle", h -> stores.sessions().settle(h, session, Set.of(STARTING),
        Set.of(TaskState.IN_PROGRESS), "settled", "", fence)));
    retried(() -> tx.inTransaction("unlock", h -> locks.release(h, session, "resume")));
  }

  /**
   * Kandev's SQL from the facts, each statement group its own transaction as Kandev runs them:
   * a boot's ALTER … ADD COLUMN, SetSessionMetadataKey, a prompt's message in its turn under the
   * advisory lock, the cleanup barrier's SELECT … FOR UPDATE on the task, and a prompt's claim
   * (UpdateTaskSessionStateIfCurrent WAITING_FOR_INPUT → RUNNING). Returns whether the claim won.
   */
  private boolean kandevWrites(String k, String session, String task, int round) {
    // Kandev's own connection, in its schema, with a lock timeout like ours.
    try (Connection c = DriverManager.getConnection(db.url() + "?currentSchema=" + k, TestDatabase.USER, "")) {
      try (Statement s = c.createStatement()) {
        s.execute("SET lock_timeout = '5s'");
        try {
          s.execute("ALTER TABLE task_sessions ADD COLUMN review_status TEXT DEFAULT ''");
        } catch (SQLException alreadyThere) {
          // Kandev's MigrateLogger swallows "already exists" (and logs other errors as WARN).
        }
      }
      exec(c, "UPDATE task_sessions SET metadata = jsonb_set(CASE WHEN metadata IS NULL OR metadata IN ('null','')"
          + " THEN '{}'::jsonb ELSE metadata::jsonb END, ARRAY['context_window'], ?::jsonb, true)::text WHERE id = ?",
          String.valueOf(round), session);
      c.setAutoCommit(false);
      exec(c, "SELECT pg_advisory_xact_lock(hashtextextended('task-session-turn:' || ?, 0))", session);
      exec(c, "INSERT INTO task_session_turns (id, task_session_id, task_id, started_at, created_at, updated_at)"
          + " VALUES (?, ?, ?, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')",
          "turn-" + session, session, task);
      exec(c, "INSERT INTO task_session_prompt_seq (task_session_id, last_seq) VALUES (?, 1)"
          + " ON CONFLICT (task_session_id) DO UPDATE SET last_seq = task_session_prompt_seq.last_seq + 1", session);
      exec(c, "INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, content, type,"
          + " created_at, prompt_seq) SELECT ?, ?, ?, ?, 'user', ?, 'message', now() AT TIME ZONE 'UTC', last_seq"
          + " FROM task_session_prompt_seq WHERE task_session_id = ?",
          "msg-" + session, session, task, "turn-" + session, "prompt " + round, session);
      c.commit();
      exec(c, "SELECT id FROM tasks WHERE id = ? FOR UPDATE", task);
      int claimed;
      try (PreparedStatement claim = c.prepareStatement("UPDATE task_sessions SET state = 'RUNNING', completed_at = NULL,"
          + " updated_at = now() AT TIME ZONE 'UTC' WHERE id = ? AND state = 'WAITING_FOR_INPUT'")) {
        claim.setString(1, session);
        claimed = claim.executeUpdate();
      }
      c.commit();
      return claimed == 1;
    } catch (SQLException e) {
      throw new IllegalStateException("Kandev's stand-in failed", e);
    }
  }

  private static void exec(Connection c, String sql, String... args) throws SQLException {
    try (PreparedStatement statement = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        statement.setString(i + 1, args[i]);
      }
      statement.execute();
    }
  }

  /** A store step retried on a retryable store failure (a lock timeout behind Kandev's boot ALTER), as its activity is. */
  private static <T> T retried(Supplier<T> step) {
    for (int attempt = 1; ; attempt++) {
      try {
        return step.get();
      } catch (StoreException e) {
        if (attempt == 5) {
          throw e;
        }
      }
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
