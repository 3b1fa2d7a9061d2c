package dev.kandev.recovery.activities.store.kandev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.resume.SessionActivitiesImpl;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.KandevOutboxStore;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.TranscriptMessage;
import dev.kandev.recovery.activities.store.TranscriptStore;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.TestSessionActivities;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kandev layout beside an unpatched Kandev, on Kandev's own DDL as its backend creates it
 * ({@code ../shared/reference/kandev-schema-cd9fa0e.sql}): Kandev sees our agent in its
 * {@code executors_running}, we see Kandev's, a lost race says so, a restored session's error is one
 * line, a replay is published as Kandev's message and turn events, and our schema has no table with
 * Kandev's names.
 */
class KandevHonestLayoutTest {
  @RegisterExtension final TestDatabase db = TestDatabase.onKandevsSchema();

  private static final ObjectMapper JSON = Json.mapper();
  private static final String WORKER = "worker-1";
  private Fixtures fixtures;
  private SessionStore sessions;
  private SessionIdentityStore identities;
  private ExecutorsRunningStore executors;
  private TranscriptStore transcript;
  private SessionActivitiesImpl activities;
  private final ResumeLockStore locks = new ResumeLockStore();
  private final KandevOutboxStore outbox = new KandevOutboxStore();
  private String k;

  @BeforeEach
  void setUp() {
    fixtures = db.fixtures();
    k = db.layout().kandevSchema();
    KandevLayoutStores stores = KandevLayoutStores.of(db.layout(), JSON,
        new OutboxKandevEvents(k, JSON, Clock.systemUTC()));
    sessions = stores.sessions();
    identities = stores.identities();
    executors = stores.executors();
    transcript = stores.transcript();
    activities = TestSessionActivities.of(db.transactions(), stores, WORKER);
    fixtures.task("t-1", "ws-1", "IN_PROGRESS").session("s-1", "t-1", "profile-1", SessionState.FAILED, "{}");
  }

  private String executorRow() {
    return fixtures.string("SELECT status || '|' || COALESCE(pid, 0) || '|' || COALESCE(agent_execution_id, '') || '|'"
        + " || COALESCE(runtime, '') || '|' || execution_profile_id || '|' || resumable || '|' || COALESCE(resume_token, '')"
        + " || '|' || id || '|' || task_id FROM " + k + ".executors_running WHERE session_id = 's-1'");
  }

  private Fence lock() {
    return db.tx((Handle h) -> locks.acquire(h, "s-1", "resume-1", Duration.ofMinutes(5))).orElseThrow().fence();
  }

  private List<String> outboxSubjects() {
    return db.tx((Handle h) -> outbox.nextUnpublished(h, 100)).stream().map(KandevOutboxStore.PendingEvent::subject).toList();
  }

  @Test
  void ourExecutionIsRecordedInKandevsRowAsKandevsExecutorRecordsOneAndClosedWhenItEnds() {
    // Kandev's boot deleted the session's prepared row: ours is created whole, not bare.
    db.run(h -> executors.recordStarting(h, "s-1", "exec-1", "host-a", WORKER, 4242));
    assertThat(executorRow()).isEqualTo("starting|4242|exec-1|kandev-recovery|profile-1|1||s-1|t-1");
    Fence fence = lock();
    db.run(h -> identities.replaceAfterNewSession(h, "s-1", "tok-1", fence));
    assertThat(executorRow()).as("the token goes into our row").isEqualTo("starting|4242|exec-1|kandev-recovery|profile-1|1|tok-1|s-1|t-1");
    db.run(h -> executors.markRunning(h, "s-1", "exec-1", Fence.none()));
    assertThat(executorRow()).as("serving: Kandev's ready").isEqualTo("ready|4242|exec-1|kandev-recovery|profile-1|1|tok-1|s-1|t-1");
    db.run(h -> executors.markExited(h, "s-1", "exec-1", "stopped", "stopped by its worker\nsecond line"));
    assertThat(executorRow()).as("closed with Kandev's stopped values, the token kept")
        .isEqualTo("stopped|0|exec-1|kandev-recovery|profile-1|1|tok-1|s-1|t-1");
    assertThat(fixtures.string("SELECT error_message FROM " + k + ".executors_running WHERE session_id = 's-1'"))
        .isEqualTo("stopped by its worker");
  }

  /**
   * Kandev's idle reaper (every 30 s) marks a row stopped when no agent of Kandev's own process
   * serves it and the row is a minute old, seen beside Kandev's real backend while our agent ran; the
   * presence beat shows the worker's live agents again, and no row of Kandev's or of another worker.
   */
  @Test
  void thePresenceBeatShowsOurLiveAgentAgainAfterKandevsIdleReaperMarkedItStopped() {
    db.run(h -> executors.recordStarting(h, "s-1", "exec-1", "host-a", WORKER, 4242));
    db.run(h -> executors.markRunning(h, "s-1", "exec-1", Fence.none()));
    fixtures.exec("UPDATE " + k + ".executors_running SET status = 'stopped', local_pid = 0,"
        + " updated_at = now() AT TIME ZONE 'UTC' - interval '2 minutes' WHERE session_id = 's-1'");

    db.run(h -> executors.showLive(h, "another-worker"));
    assertThat(executorRow()).as("another worker's beat shows only its own agents").startsWith("stopped|");
    db.run(h -> executors.showLive(h, WORKER));

    assertThat(executorRow()).isEqualTo("ready|4242|exec-1|kandev-recovery|profile-1|1||s-1|t-1");
    assertThat(fixtures.count("SELECT count(*) FROM " + k + ".executors_running WHERE session_id = 's-1'"
        + " AND updated_at > now() AT TIME ZONE 'UTC' - interval '10 seconds'")).as("fresh for Kandev's reaper").isOne();
  }

  @Test
  void kandevsRowIsTakenOverKeepingItsTokenAndProfileAndAnExecutionOfKandevsIsNeverOverwritten() {
    fixtures.exec("INSERT INTO " + k + ".executors_running (id, session_id, task_id, executor_id, execution_profile_id,"
        + " runtime, status, resumable, resume_token, agent_execution_id, local_pid, worktree_path, created_at, updated_at)"
        + " VALUES ('s-1', 's-1', 't-1', 'exec-local', 'profile-old', 'standalone', 'prepared', 1, 'tok-k', 'k-exec', 77,"
        + " '/w', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')");
    db.run(h -> executors.recordStarting(h, "s-1", "exec-1", "host-a", WORKER, 4242));
    assertThat(executorRow()).isEqualTo("starting|4242|exec-1|kandev-recovery|profile-old|1|tok-k|s-1|t-1");
    assertThat(fixtures.string("SELECT executor_id || '|' || local_pid || '|' || worktree_path FROM " + k
        + ".executors_running WHERE session_id = 's-1'")).isEqualTo("exec-local|0|/w");

    // Kandev's lifecycle upsert replaced our execution with its own: our exit leaves its row alone.
    fixtures.exec("UPDATE " + k + ".executors_running SET status = 'ready', agent_execution_id = 'k-exec-2',"
        + " runtime = 'standalone', pid = 0 WHERE session_id = 's-1'");
    db.run(h -> executors.markExited(h, "s-1", "exec-1", "failed", "gone"));
    assertThat(executorRow()).isEqualTo("ready|0|k-exec-2|standalone|profile-old|1|tok-k|s-1|t-1");
    // Nor does a later start of ours hide Kandev's live agent.
    db.run(h -> executors.recordStarting(h, "s-1", "exec-2", "host-a", WORKER, 4343));
    assertThat(executorRow()).isEqualTo("ready|0|k-exec-2|standalone|profile-old|1|tok-k|s-1|t-1");
  }

  @Test
  void aResumeOfASessionWhoseKandevAgentIsLiveIsRefusedBeforeStartingWithItsTokenUntouched() {
    fixtures.storedToken("s-1", "tok-k");
    fixtures.exec("UPDATE " + k + ".executors_running SET status = 'ready', agent_execution_id = 'k-exec',"
        + " runtime = 'standalone' WHERE session_id = 's-1'");
    Fence fence = lock();

    assertThatThrownBy(() -> activities.readResumeContext("s-1", ResumeMode.START_FRESH, fence))
        .isInstanceOfSatisfying(ApplicationFailure.class, failure -> {
          assertThat(failure.getType()).isEqualTo(FailureType.KANDEV_AGENT_RUNNING.type());
          assertThat(failure.getOriginalMessage()).contains("status ready, execution k-exec, runtime standalone");
        });
    assertThat(db.tx((Handle h) -> sessions.get(h, "s-1")).state()).isEqualTo(SessionState.FAILED);
    assertThat(db.tx((Handle h) -> identities.read(h, "s-1")).resumeToken()).isEqualTo("tok-k");

    // Once Kandev's agent is stopped (its shutdown or boot writes stopped), the resume goes on; ours never counts.
    fixtures.exec("UPDATE " + k + ".executors_running SET status = 'stopped' WHERE session_id = 's-1'");
    assertThat(activities.readResumeContext("s-1", ResumeMode.RESUME, fence).resumeToken()).isEqualTo("tok-k");
    db.run(h -> executors.recordStarting(h, "s-1", "exec-1", "host-a", WORKER, 4242));
    db.run(h -> executors.markRunning(h, "s-1", "exec-1", Fence.none()));
    assertThat(db.tx((Handle h) -> executors.kandevAgentOf(h, "s-1"))).isEmpty();
  }

  @Test
  void kandevsBootSettlingTheSessionMidResumeIsALostRaceNothingIsRestoredOverItAndTheMarkStays() {
    fixtures.storedToken("s-1", "tok-1");
    fixtures.exec("UPDATE " + k + ".tasks SET metadata = '{\"interrupted_at\":\"2026-12-01T00:00:00Z\",\"keep\":1}'"
        + " WHERE id = 't-1'");
    Fence fence = lock();
    activities.markStarting("s-1", SessionState.FAILED, "user", fence);
    assertThat(fixtures.string("SELECT metadata FROM " + k + ".tasks WHERE id = 't-1'"))
        .as("entering STARTING clears the mark, as Kandev's own transition does").isEqualTo("{\"keep\": 1}");
    assertThat(outboxSubjects()).containsExactly("task.updated", "task_session.state_changed");
    db.run(h -> executors.recordStarting(h, "s-1", "exec-1", "host-a", WORKER, 4242));
    db.run(h -> executors.markRunning(h, "s-1", "exec-1", fence));

    // Kandev's boot (reconcileActiveSessionOnStartup): WAITING_FOR_INPUT, the task marked interrupted.
    fixtures.exec("UPDATE " + k + ".task_sessions SET state = 'WAITING_FOR_INPUT' WHERE id = 's-1'");
    fixtures.exec("UPDATE " + k + ".tasks SET metadata = '{\"interrupted_at\":\"2026-12-06T00:00:00Z\"}' WHERE id = 't-1'");

    assertThatThrownBy(() -> activities.settleSession("s-1", fence))
        .isInstanceOfSatisfying(ApplicationFailure.class,
            failure -> assertThat(failure.getType()).isEqualTo(FailureType.SESSION_STATE_SUPERSEDED.type()));
    assertThat(activities.restorePriorState("s-1", SessionState.FAILED, "resume failed\nstderr tail", fence))
        .isEqualTo(SessionState.WAITING_FOR_INPUT);
    assertThat(fixtures.string("SELECT state || '|' || COALESCE(error_message, '') FROM " + k + ".task_sessions WHERE id = 's-1'"))
        .isEqualTo("WAITING_FOR_INPUT|");
    assertThat(fixtures.string("SELECT metadata FROM " + k + ".tasks WHERE id = 't-1'")).contains("interrupted_at");
  }

  @Test
  void aRestoredSessionThatIsNotFailedKeepsOneLineOfItsErrorAndOurEventKeepsAll() {
    fixtures.exec("UPDATE " + k + ".task_sessions SET state = 'WAITING_FOR_INPUT' WHERE id = 's-1'");
    Fence fence = lock();
    activities.markStarting("s-1", SessionState.WAITING_FOR_INPUT, "user", fence);
    String error = "resume failed at LAUNCH_AGENT (AGENT_SESSION_LOAD_REJECTED): rejected; stderr tail:\nline 1\nline 2";
    assertThat(activities.restorePriorState("s-1", SessionState.WAITING_FOR_INPUT, error, fence))
        .isEqualTo(SessionState.WAITING_FOR_INPUT);
    assertThat(fixtures.string("SELECT error_message FROM " + k + ".task_sessions WHERE id = 's-1'"))
        .isEqualTo("resume failed at LAUNCH_AGENT (AGENT_SESSION_LOAD_REJECTED): rejected; stderr tail:");
    assertThat(fixtures.string("SELECT error_message FROM session_events WHERE session_id = 's-1' ORDER BY id DESC LIMIT 1"))
        .isEqualTo(error);
  }

  @Test
  void aReplaysMessagesAndTurnArePublishedAsKandevsOwnEventsInOrder() throws Exception {
    int added = db.tx((Handle h) -> transcript.recordReplay(h, "s-1", List.of(
        new TranscriptMessage("user", "fix the build", "m-1"), new TranscriptMessage("agent", "done", "m-2"))));
    assertThat(added).isEqualTo(2);
    List<KandevOutboxStore.PendingEvent> events = db.tx((Handle h) -> outbox.nextUnpublished(h, 100));
    assertThat(events).extracting(KandevOutboxStore.PendingEvent::subject)
        .containsExactly("turn.started", "message.added", "message.added", "turn.completed");
    String turnId = fixtures.string("SELECT id FROM " + k + ".task_session_turns WHERE task_session_id = 's-1'");
    JsonNode started = JSON.readTree(events.get(0).envelope());
    assertThat(started.path("type").asText()).isEqualTo("turn.started");
    assertThat(started.path("data").path("id").asText()).isEqualTo(turnId);
    assertThat(started.path("data").path("session_id").asText()).isEqualTo("s-1");
    assertThat(started.path("data").path("metadata").path("source").asText()).isEqualTo("kandev-recovery session/load replay");
    JsonNode prompt = JSON.readTree(events.get(1).envelope()).path("data");
    assertThat(prompt.path("turn_id").asText()).isEqualTo(turnId);
    assertThat(prompt.path("author_type").asText()).isEqualTo("user");
    assertThat(prompt.path("content").asText()).isEqualTo("fix the build");
    assertThat(prompt.path("type").asText()).isEqualTo("message");
    assertThat(prompt.path("prompt_index").asInt()).isEqualTo(1);
    assertThat(prompt.path("requests_input").isBoolean()).isTrue();
    assertThat(prompt.path("message_id").asText()).isEqualTo(
        fixtures.string("SELECT id FROM " + k + ".task_session_messages WHERE content = 'fix the build'"));
    assertThat(JSON.readTree(events.get(2).envelope()).path("data").path("author_type").asText()).isEqualTo("agent");
    assertThat(JSON.readTree(events.get(3).envelope()).path("data").path("had_output").asBoolean()).isTrue();

    // A replay that adds nothing publishes nothing.
    db.tx((Handle h) -> transcript.recordReplay(h, "s-1", List.of(
        new TranscriptMessage("user", "fix the build", "m-1"), new TranscriptMessage("agent", "done", "m-2"))));
    assertThat(db.tx((Handle h) -> outbox.nextUnpublished(h, 100))).hasSize(4);
  }

  /** A kandev-layout schema migrated before this release (the mirror's V1–V13 applied) keeps working. */
  @Test
  void aKandevLayoutSchemaThatHasTheMirrorsTablesKeepsMigratingAndWorking() throws Exception {
    String legacy = db.database().schema() + "_old";
    org.flywaydb.core.Flyway.configure().dataSource(TestDatabase.URL, TestDatabase.USER, "").schemas(legacy)
        .createSchemas(true).locations(dev.kandev.recovery.activities.store.Database.migrationLocations(
            dev.kandev.recovery.activities.store.StoreLayout.MIRROR, true)).target("13").load().migrate();
    try (dev.kandev.recovery.activities.store.Database old = dev.kandev.recovery.activities.store.Database.open(
        new dev.kandev.recovery.activities.store.DatabaseSettings(TestDatabase.URL, TestDatabase.USER, "", legacy, 4,
            db.layout())).migrate()) {
      KandevLayoutStores stores = KandevLayoutStores.of(db.layout(), JSON, KandevEventOutbox.NONE);
      Fence fence = old.transactions().inTransaction("lock", h -> locks.acquire(h, "s-1", "r", Duration.ofMinutes(1)))
          .orElseThrow().fence();
      old.transactions().run("start", h -> stores.sessions().transition(h, "s-1", java.util.Set.of(SessionState.FAILED),
          SessionState.STARTING, "resume", "", fence));
      assertThat(fixtures.string("SELECT state FROM " + k + ".task_sessions WHERE id = 's-1'")).isEqualTo("STARTING");
      assertThat(fixtures.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = ?"
          + " AND table_name = 'task_sessions'", legacy)).as("its mirror tables stay until dropped by hand").isEqualTo(1);
    } finally {
      fixtures.exec("DROP SCHEMA " + legacy + " CASCADE");
    }
  }

  @Test
  void aFreshKandevLayoutSchemaHasNoTableWithKandevsNames() {
    assertThat(fixtures.strings("SELECT table_name FROM information_schema.tables WHERE table_schema = ?"
        + " AND table_name IN ('tasks', 'task_sessions', 'executors_running', 'repositories', 'task_repositories',"
        + " 'session_messages') ORDER BY 1", db.database().schema())).isEmpty();
    assertThat(fixtures.strings("SELECT table_name FROM information_schema.tables WHERE table_schema = ?"
        + " AND table_name IN ('session_events', 'resume_locks', 'credential_leases', 'kandev_agent_executions')"
        + " ORDER BY 1", db.database().schema()))
        .containsExactly("credential_leases", "kandev_agent_executions", "resume_locks", "session_events");
  }
}
