package dev.kandev.recovery.worker.recovery;

import static dev.kandev.recovery.workflows.model.SessionState.CREATED;
import static dev.kandev.recovery.workflows.model.SessionState.RUNNING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.activities.store.kandev.KandevTranscriptStore;
import dev.kandev.recovery.activities.store.TranscriptEntry;
import dev.kandev.recovery.activities.store.WorkerPresenceStore;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.RecordedHistories;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.model.ReviewBucket;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.model.TaskState;
import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import dev.kandev.recovery.workflows.resume.RequestedHostWait;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import io.temporal.api.common.v1.Payloads;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The spec's "Turn Finished after a backend restart and automatic resume" scenario, on both store
 * layouts: our mirror and Kandev's own tables.
 */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
public class RestartRecoveryTest {
  @RegisterExtension @Order(1) final TestDatabase db;
  @RegisterExtension @Order(2) final ResumeHarness harness;

  public RestartRecoveryTest(StoreLayout.Kind layout) {
    this.db = new TestDatabase(layout);
    this.harness = new ResumeHarness(db);
  }

  private KandevLayoutStores stores() {
    return KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE);
  }

  /** The session's transcript as the layout keeps it. */
  private List<TranscriptEntry> transcript(String sessionId) {
    return db.tx((Handle h) -> stores().transcript() instanceof KandevTranscriptStore kandev
        ? kandev.entries(h, sessionId) : TestStores.transcript(h, sessionId));
  }

  /** The task's state, read with plain SQL (Kandev's tasks first on the fixtures' search path). */
  private Optional<TaskState> taskState(String sessionId) {
    return Optional.ofNullable(harness.fixtures().string("SELECT state FROM tasks WHERE id = ?", ResumeHarness.taskOf(sessionId)))
        .map(TaskState::valueOf);
  }

  @Test
  void completedTurnStaysInTurnFinishedThroughABackendRestartAndAutomaticResume() throws Exception {
    String token = sessionWithACompletedTurn("s1");
    String taskWrittenAt = taskUpdatedAt("s1");
    List<TranscriptEntry> transcript = transcript("s1");
    int eventsBeforeRestart = harness.transitions("s1").size();
    backendDiesWithItsAgent("s1");

    ResumeResult resumed = restartAndAwaitAutomaticResume("s1");
    RecordedHistories.recordIfAsked(harness.history("s1"), "one-upsert-resume-restart-recovery");

    assertThat(resumed.loaded()).isTrue();
    assertThat(resumed.providerSessionId()).isEqualTo(token);
    assertThat(harness.state("s1")).isEqualTo(WAITING_FOR_INPUT);
    assertThat(transcript("s1")).as("the prior transcript, once").isEqualTo(transcript);
    // The task was never written during the restart and resume: it stayed REVIEW throughout.
    assertThat(taskUpdatedAt("s1")).isEqualTo(taskWrittenAt);
    List<String> sinceRestart = harness.transitions("s1").subList(eventsBeforeRestart, harness.transitions("s1").size());
    assertThat(sinceRestart).containsExactly("WAITING_FOR_INPUT>STARTING", "STARTING>WAITING_FOR_INPUT");
    assertThat(sinceRestart).allSatisfy(step ->
        assertThat(ReviewBucket.classify(SessionState.parse(step.substring(step.indexOf('>') + 1)), TaskState.REVIEW))
            .as("bucket at %s", step)
            .isEqualTo(ReviewBucket.REVIEW));
  }

  @Test
  void responsePersistedBeforeTheSessionSettledEndsInTurnFinishedAfterTheRestart() throws Exception {
    sessionWithACompletedTurn("s1");
    List<TranscriptEntry> transcript = transcript("s1");
    // The backend died after persisting the response but before the lifecycle settled.
    db.tx(h -> harness.sessions().transition(h, "s1", Set.of(WAITING_FOR_INPUT), RUNNING, "turn", "", Fence.none()));
    harness.fixtures().exec("UPDATE tasks SET state = 'IN_PROGRESS' WHERE id = ? AND state = 'REVIEW'", ResumeHarness.taskOf("s1"));
    backendDiesWithItsAgent("s1");

    restartAndAwaitAutomaticResume("s1");

    assertThat(harness.state("s1")).isEqualTo(WAITING_FOR_INPUT);
    assertThat(taskState("s1")).contains(TaskState.REVIEW);
    assertThat(ReviewBucket.classify(WAITING_FOR_INPUT, TaskState.REVIEW)).isEqualTo(ReviewBucket.REVIEW);
    assertThat(transcript("s1")).isEqualTo(transcript);
  }

  @Test
  void aWorkerOnTheSameHostThatStillBeatsKeepsItsSessionsUntilItIsGone() throws Exception {
    String token = sessionWithACompletedTurn("s1");
    backendDiesWithItsAgent("s1");
    WorkerPresenceStore presence = new WorkerPresenceStore();
    db.run(h -> presence.beat(h, "worker-a", "test-host"));

    assertThat(recovery().resumeLostSessions()).as("worker-a is alive").isEmpty();

    harness.fixtures().exec("UPDATE worker_presence SET last_seen_at = now() - interval '2 minutes'"
        + " WHERE worker_instance = 'worker-a'");
    ResumeResult resumed = restartAndAwaitAutomaticResume("s1");
    assertThat(resumed.providerSessionId()).isEqualTo(token);
    assertThat(harness.state("s1")).isEqualTo(WAITING_FOR_INPUT);
  }

  @Test
  void aSessionWaitingForTheUsersRecoveryChoiceIsNotResumedAutomatically() throws Exception {
    sessionWithACompletedTurn("s1");
    db.tx(h -> harness.sessions().transition(h, "s1", Set.of(WAITING_FOR_INPUT), RUNNING, "turn", "", Fence.none()));
    db.tx(h -> harness.sessions().transition(h, "s1", Set.of(RUNNING), WAITING_FOR_INPUT, "agent failed",
        "agent encountered an error", Fence.none()));
    backendDiesWithItsAgent("s1");

    assertThat(recovery().resumeLostSessions()).isEmpty();
  }

  /** A session whose agent answered one prompt; the task is in review. Returns the token. */
  private String sessionWithACompletedTurn(String sessionId) throws Exception {
    harness.fixtures().task(ResumeHarness.taskOf(sessionId), ResumeHarness.WORKSPACE, "IN_PROGRESS")
        .session(sessionId, ResumeHarness.taskOf(sessionId), TestAgent.AGENT_ID, CREATED, "{}");
    String token = harness.resume(sessionId, ResumeMode.START_FRESH).providerSessionId();
    var turn = harness.prompt(sessionId, "hello");
    assertThat(turn.stopReason()).isEqualTo("end_turn");
    assertThat(taskState(sessionId)).contains(TaskState.REVIEW);
    assertThat(transcript(sessionId)).extracting(TranscriptEntry::role).contains("user", "agent");
    return token;
  }

  /**
   * The worker process is gone and its agent with it. A dying process records nothing, so the
   * runtime row still claims a running agent of the old worker instance.
   */
  private void backendDiesWithItsAgent(String sessionId) {
    harness.components().agentHost().stop(sessionId);
    harness.fixtures().exec("UPDATE " + (db.layout().isKandev() ? "kandev_agent_executions" : "executors_running")
        + " SET status = 'running' WHERE session_id = ?", sessionId);
  }

  private ResumeResult restartAndAwaitAutomaticResume(String sessionId) throws Exception {
    assertThat(recovery().resumeLostSessions()).containsExactly(sessionId);
    ResumeResult result = harness.resumes().attach(sessionId, null).await(Duration.ofMinutes(2));
    assertThat(startedWith(sessionId).hostWait()).as("its host is alive, it may be busy: the long host wait")
        .isEqualTo(RequestedHostWait.RESTART_RECOVERY);
    return result;
  }

  /** The request the latest resume of the session was started with. */
  private ResumeRequest startedWith(String sessionId) {
    Payloads input = harness.history(sessionId).getEvents().get(0).getWorkflowExecutionStartedEventAttributes().getInput();
    return RecoveryDataConverter.INSTANCE.fromPayloads(0, Optional.of(input), ResumeRequest.class, ResumeRequest.class);
  }

  /** The restarted worker: same host, a new instance. */
  private RestartRecovery recovery() {
    return new RestartRecovery(db.transactions(), stores().executors(), harness.resumes(), "test-host", "worker-b");
  }

  private String taskUpdatedAt(String sessionId) {
    return harness.fixtures().string("SELECT updated_at::text FROM tasks WHERE id = ?", ResumeHarness.taskOf(sessionId));
  }
}
