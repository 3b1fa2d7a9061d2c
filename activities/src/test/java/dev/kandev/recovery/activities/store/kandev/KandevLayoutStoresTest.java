package dev.kandev.recovery.activities.store.kandev;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.RetentionStore;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.KandevSchemaCheck;
import dev.kandev.recovery.activities.store.KandevSchemaMismatchException;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TranscriptMessage;
import dev.kandev.recovery.activities.store.TranscriptStore;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.KandevCatalog;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.model.TaskState;
import dev.kandev.recovery.workflows.retention.PruneBatch;
import dev.kandev.recovery.workflows.retention.RetentionTable;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What only the kandev layout promises: Kandev's types, lock order, key merges and tables, and its catalog untouched. */
class KandevLayoutStoresTest {
  @RegisterExtension final TestDatabase db = new TestDatabase(StoreLayout.Kind.KANDEV);

  private final List<String> published = new CopyOnWriteArrayList<>();
  private final KandevEventOutbox recording = new KandevEventOutbox() {
    @Override
    public void sessionStateChanged(Handle transaction, String sessionId, String oldState) {
      published.add("session " + sessionId + " from " + oldState + " to "
          + transaction.createQuery("SELECT state FROM " + db.layout().kandevSchema() + ".task_sessions WHERE id = :id")
              .bind("id", sessionId).mapTo(String.class).one());
    }

    @Override
    public void taskStateChanged(Handle transaction, String taskId, String oldState) {
      published.add("task " + taskId + " from " + oldState);
    }

    @Override
    public void taskUpdated(Handle transaction, String taskId) {
      published.add("task " + taskId + " updated");
    }

    @Override
    public void transcriptReplayed(Handle transaction, String turnId, List<String> messageIds) {
      published.add("turn of " + messageIds.size() + " messages");
    }
  };
  private Fixtures fixtures;
  private SessionStore sessions;
  private SessionIdentityStore identities;
  private ExecutorsRunningStore executors;
  private TranscriptStore transcript;
  private String catalogBefore;

  @BeforeEach
  void setUp() {
    fixtures = db.fixtures();
    KandevLayoutStores stores = KandevLayoutStores.of(db.layout(), Json.mapper(), recording);
    sessions = stores.sessions();
    identities = stores.identities();
    executors = stores.executors();
    transcript = stores.transcript();
    catalogBefore = KandevCatalog.of(fixtures, db.layout().kandevSchema());
  }

  @Test
  void aResumesTransitionsAreKandevsCompareAndSetsInKandevsTypesEachHandedToTheOutbox() {
    fixtures.task("t1", "ws-1", "IN_PROGRESS").session("s1", "t1", "test-agent", FAILED, "{}");

    db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", Fence.none()));
    db.tx(h -> sessions.settle(h, "s1", Set.of(STARTING), Set.of(TaskState.IN_PROGRESS), "settled", "", Fence.none()));

    assertThat(published).containsExactly(
        "session s1 from FAILED to STARTING", "session s1 from STARTING to WAITING_FOR_INPUT", "task t1 from IN_PROGRESS");
    assertThat(fixtures.string("SELECT s.state || '/' || t.state || '/' || (s.completed_at IS NULL)"
        + " FROM task_sessions s JOIN tasks t ON t.id = s.task_id")).isEqualTo("WAITING_FOR_INPUT/REVIEW/true");
    // Naive UTC wall clock, as Kandev's Go writes time.Now().UTC(), whatever the session's TimeZone.
    long skewSeconds = fixtures.count("SELECT abs(extract(epoch FROM (updated_at - (now() AT TIME ZONE 'UTC'))))::bigint"
        + " FROM task_sessions WHERE id = 's1'");
    assertThat(skewSeconds).isLessThan(30);
    assertThat(fixtures.string("SELECT from_state || '>' || to_state FROM session_events ORDER BY id DESC LIMIT 1"))
        .isEqualTo("STARTING>WAITING_FOR_INPUT");
    assertThat(KandevCatalog.of(fixtures, db.layout().kandevSchema())).isEqualTo(catalogBefore);
  }

  @Test
  void metadataIsMergedKeyByKeyAndAConcurrentKandevKeySurvives() {
    fixtures.task("t1", "ws-1", "IN_PROGRESS").session("s1", "t1", "test-agent", STARTING, "");
    ObjectNode snapshot = JsonNodeFactory.instance.objectNode().put("policy", "github_app");

    kandevSetsMetadataKey("plan_mode", "true");
    db.tx(h -> sessions.writeMetadataEntry(h, "s1", "git_credential_snapshot", snapshot, Set.of(STARTING), Fence.none()));
    assertThat(fixtures.string("SELECT metadata FROM task_sessions WHERE id = 's1'"))
        .isEqualTo("{\"plan_mode\": true, \"git_credential_snapshot\": {\"policy\": \"github_app\"}}");
    kandevSetsMetadataKey("context_window", "5");
    db.tx(h -> sessions.writeMetadataEntry(h, "s1", "git_credential_snapshot", null, Set.of(STARTING), Fence.none()));

    assertThat(fixtures.string("SELECT metadata FROM task_sessions WHERE id = 's1'"))
        .isEqualTo("{\"plan_mode\": true, \"context_window\": 5}");
    assertThat(fixtures.string("SELECT pg_typeof(metadata)::text FROM task_sessions WHERE id = 's1'")).isEqualTo("text");
  }

  /** Kandev's {@code SetSessionMetadataKey} on PostgreSQL, as the facts give it. */
  private void kandevSetsMetadataKey(String key, String jsonValue) {
    fixtures.exec("UPDATE task_sessions SET metadata = jsonb_set(CASE WHEN metadata IS NULL OR metadata IN ('null','')"
        + " THEN '{}'::jsonb ELSE metadata::jsonb END, ARRAY[?], ?::jsonb, true)::text WHERE id = 's1'", key, jsonValue);
  }

  @Test
  void theSnapshotKeptWhileStartingIsPutBackExactly() {
    fixtures.task("t1", "ws-1", "IN_PROGRESS")
        .session("s1", "t1", "test-agent", FAILED, "{\"git_credential_snapshot\":{\"policy\":\"none\",\"version\":1}}");
    Fence fence = db.tx(h -> new dev.kandev.recovery.activities.store.ResumeLockStore()
        .acquire(h, "s1", "owner", Duration.ofMinutes(1)).orElseThrow().fence());
    db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", fence));
    db.tx(h -> {
      sessions.keepCredentialSnapshotBeforeResume(h, "s1", fence);
      return sessions.writeMetadataEntry(h, "s1", "git_credential_snapshot",
          JsonNodeFactory.instance.objectNode().put("policy", "github_app"), Set.of(STARTING), fence);
    });

    assertThat(db.tx((Handle h) -> sessions.restoreCredentialSnapshotBeforeResume(h, "s1", Set.of(STARTING), fence))
        .orElseThrow().applied()).isTrue();
    assertThat(fixtures.string("SELECT metadata::jsonb -> 'git_credential_snapshot' FROM task_sessions WHERE id = 's1'"))
        .isEqualTo("{\"policy\": \"none\", \"version\": 1}");
    assertThat(db.tx((Handle h) -> sessions.lastStartedUnder(h, "s1", fence))).isTrue();
  }

  @Test
  void theTokenGoesWhereKandevKeepsItAndOtherAcpKeysSurvive() {
    fixtures.task("t1", "ws-1", "IN_PROGRESS")
        .session("s1", "t1", "test-agent", STARTING, "{\"acp\":{\"title\":\"Fix it\"},\"plan_mode\":true}");

    db.run(h -> identities.replaceAfterNewSession(h, "s1", "acp-42", Fence.none()));

    assertThat(db.tx((Handle h) -> identities.read(h, "s1"))).isEqualTo(new SessionIdentity("acp-42", "acp-42"));
    assertThat(fixtures.string("SELECT id || '/' || session_id || '/' || status || '/' || resumable || '/' || resume_token"
        + " FROM executors_running")).isEqualTo("s1/s1/stopped/1/acp-42");
    assertThat(fixtures.string("SELECT metadata::jsonb::text FROM task_sessions WHERE id = 's1'"))
        .isEqualTo("{\"acp\": {\"title\": \"Fix it\", \"session_id\": \"acp-42\"}, \"plan_mode\": true}");

    db.run(h -> identities.clearForFreshStart(h, "s1", Fence.none()));
    assertThat(db.tx((Handle h) -> identities.read(h, "s1"))).isEqualTo(new SessionIdentity("", ""));
    assertThat(fixtures.string("SELECT metadata::jsonb -> 'acp' ->> 'title' FROM task_sessions")).isEqualTo("Fix it");
    assertThat(KandevCatalog.of(fixtures, db.layout().kandevSchema())).isEqualTo(catalogBefore);
  }

  @Test
  void aReplayedTranscriptGoesIntoKandevsMessagesInATurnOnceAndInOrder() {
    fixtures.task("t1", "ws-1", "IN_PROGRESS").session("s1", "t1", "test-agent", STARTING, "{}");
    List<TranscriptMessage> replay = List.of(new TranscriptMessage("user", "fix the bug", null),
        new TranscriptMessage("thought", "looking", null), new TranscriptMessage("agent", "done", "m-1"));

    assertThat(db.tx((Handle h) -> transcript.recordReplay(h, "s1", replay))).isEqualTo(3);
    assertThat(db.tx((Handle h) -> transcript.recordReplay(h, "s1", replay))).isZero();

    assertThat(fixtures.strings("SELECT author_type || '/' || type || '/' || prompt_seq || '/' || content"
        + " FROM task_session_messages ORDER BY created_at, id"))
        .containsExactly("user/message/1/fix the bug", "agent/thinking/0/looking", "agent/message/0/done");
    assertThat(fixtures.count("SELECT count(DISTINCT turn_id) FROM task_session_messages")).isEqualTo(1);
    assertThat(fixtures.count("SELECT count(*) FROM task_session_turns WHERE task_session_id = 's1' AND task_id = 't1'"))
        .isEqualTo(1);
    assertThat(KandevCatalog.of(fixtures, db.layout().kandevSchema())).isEqualTo(catalogBefore);
  }

  @Test
  void restartRecoveryFindsTheSessionsWhoseAgentsWentWithAGoneWorkerOnKandevsTables() {
    fixtures.task("t1", "ws-1", "REVIEW").session("s1", "t1", "test-agent", WAITING_FOR_INPUT, "{}")
        .storedToken("s1", "acp-1");
    fixtures.task("t2", "ws-1", "REVIEW").session("s2", "t2", "test-agent", WAITING_FOR_INPUT, "{}");
    db.run(h -> executors.recordStarting(h, "s1", "exec-1", "host-a", "gone-instance", 4242));
    db.run(h -> executors.recordStarting(h, "s2", "exec-2", "host-a", "gone-instance", 4243));

    assertThat(db.tx((Handle h) -> executors.sessionsLostOn(h, "host-a", "new-instance"))).containsExactly("s1");
    assertThat(db.tx((Handle h) -> executors.markLostWithGoneWorkers(h, "host-a", "new-instance"))).containsExactly("s2");
    // Kandev's rows show our executions: s1's, which restart recovery resumes, as it was (its token
    // kept); s2's lost agent closed with Kandev's values.
    assertThat(fixtures.string("SELECT status || '/' || resume_token || '/' || agent_execution_id FROM executors_running"
        + " WHERE session_id = 's1'")).isEqualTo("starting/acp-1/exec-1");
    assertThat(fixtures.string("SELECT status || '/' || pid || '/' || agent_execution_id FROM executors_running"
        + " WHERE session_id = 's2'")).isEqualTo("failed/0/exec-2");
    assertThat(KandevCatalog.of(fixtures, db.layout().kandevSchema())).isEqualTo(catalogBefore);
  }

  @Test
  void aTransitionTakesKandevsTaskLockBeforeTheSessionRow() throws Exception {
    fixtures.task("t1", "ws-1", "IN_PROGRESS").session("s1", "t1", "test-agent", FAILED, "{}");
    try (Connection kandev = db.dataSource().getConnection()) {
      kandev.setAutoCommit(false);
      // Kandev's cleanup barrier: SELECT … FOR UPDATE on the task, held.
      kandev.createStatement().execute("SELECT 1 FROM " + db.layout().kandevSchema() + ".tasks WHERE id = 't1' FOR UPDATE");
      CompletableFuture<Boolean> resume = CompletableFuture.supplyAsync(() -> db.tx(
          h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", Fence.none()).won()));

      Instant deadline = Instant.now().plusSeconds(4);
      // This test's schema in the pattern: another test class may run beside this one (forkCount).
      while (fixtures.count("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
          + " AND query LIKE '%" + db.layout().kandevSchema() + ".tasks WHERE id = %FOR NO KEY UPDATE'") == 0
          && Instant.now().isBefore(deadline)) {
        Thread.sleep(20);
      }
      assertThat(resume).isNotDone();
      // The session row is still free for Kandev: we wait on the task, holding nothing of Kandev's.
      kandev.createStatement().execute("SELECT 1 FROM " + db.layout().kandevSchema() + ".task_sessions WHERE id = 's1' FOR UPDATE NOWAIT");
      kandev.commit();
      assertThat(resume.get(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void theStartUpCheckNamesAMissingOrRetypedColumnAndChangesNothing() {
    String k = db.layout().kandevSchema();
    KandevSchemaCheck.check(db.dataSource(), db.layout());
    fixtures.exec("ALTER TABLE task_sessions ALTER COLUMN metadata DROP DEFAULT, ALTER COLUMN metadata TYPE jsonb USING metadata::jsonb");
    String retyped = KandevCatalog.of(fixtures, k);

    assertThatThrownBy(() -> KandevSchemaCheck.check(db.dataSource(), db.layout()))
        .isInstanceOf(KandevSchemaMismatchException.class)
        .hasMessageStartingWith("Kandev's table " + k + ".task_sessions has column metadata of type jsonb, expected metadata text:");
    assertThat(KandevCatalog.of(fixtures, k)).isEqualTo(retyped);

    fixtures.exec("ALTER TABLE task_sessions ALTER COLUMN metadata TYPE text USING metadata::text");
    fixtures.exec("ALTER TABLE executors_running DROP COLUMN resume_token");
    assertThatThrownBy(() -> KandevSchemaCheck.check(db.dataSource(), db.layout()))
        .hasMessageStartingWith("Kandev's table " + k + ".executors_running has no column resume_token, expected resume_token text:");
  }

  @Test
  void retentionPrunesOnlyOurRowsAndKeepsTheLatestEventOfAKandevSession() {
    fixtures.task("t1", "ws-1", "REVIEW").session("s1", "t1", "test-agent", WAITING_FOR_INPUT, "{}").storedToken("s1", "acp-1");
    db.run(h -> executors.recordStarting(h, "s1", "exec-1", "host-a", "w-1", 4242));
    db.run(h -> executors.markExited(h, "s1", "exec-1", "stopped", ""));
    db.tx(h -> sessions.transition(h, "s1", Set.of(WAITING_FOR_INPUT), SessionState.COMPLETED, "done", "", Fence.none()));
    db.run(h -> transcript.recordReplay(h, "s1", List.of(new TranscriptMessage("agent", "done", "m-1"))));
    fixtures.exec("UPDATE task_sessions SET completed_at = completed_at - interval '100 days'");
    fixtures.exec("UPDATE kandev_agent_executions SET updated_at = now() - interval '100 days'");
    fixtures.exec("UPDATE session_events SET at = now() - interval '100 days'");
    RetentionStore retention = new RetentionStore(db.layout());

    int[] pruned = new int[RetentionTable.values().length];
    for (RetentionTable table : RetentionTable.values()) {
      pruned[table.ordinal()] = db.tx((Handle h) -> retention.prune(h, new PruneBatch(table, 30, 100)));
    }

    assertThat(pruned[RetentionTable.EXECUTORS_RUNNING.ordinal()]).isEqualTo(1);
    assertThat(fixtures.count("SELECT count(*) FROM kandev_agent_executions")).isZero();
    assertThat(fixtures.string("SELECT resume_token FROM executors_running WHERE session_id = 's1'")).isEqualTo("acp-1");
    assertThat(pruned[RetentionTable.SESSION_MESSAGES.ordinal()]).isZero();
    assertThat(fixtures.count("SELECT count(*) FROM task_session_messages")).isEqualTo(1);
    assertThat(fixtures.count("SELECT count(*) FROM session_events")).as("the latest of the live session").isEqualTo(1);
    assertThat(KandevCatalog.of(fixtures, db.layout().kandevSchema())).isEqualTo(catalogBefore);
  }
}
