package dev.kandev.recovery.activities.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.StaleFenceException;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.store.TranscriptEntry;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.SessionState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Successful launches of the test agent: new session, load of a stored token, the transcript. */
class AcpLaunchTest {
  private static final String SESSION = "s-1";

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final AcpHarness harness = new AcpHarness(db);

  private void freshSession() {
    db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", "test-agent", SessionState.STARTING, "{}");
  }

  /** The workflow settles the session after a launch; tests that prompt do the same. */
  private void settleWaitingForInput() {
    db.fixtures().exec("UPDATE task_sessions SET state = 'WAITING_FOR_INPUT' WHERE id = ?", SESSION);
  }

  @Test
  void firstLaunchCreatesASessionAndPersistsItsIdInBothPlaces() {
    harness.start(TestAgent.profile("normal", harness.stateDir));
    freshSession();

    LaunchResult result = harness.launch(SESSION);

    assertThat(result.loaded()).isFalse();
    assertThat(result.providerSessionId()).startsWith("sess_");
    assertThat(result.agentName()).isEqualTo("kandev-test-agent");
    assertThat(result.agentVersion()).isEqualTo("1.0.0");
    assertThat(TestAgent.storedSessions(harness.stateDir)).containsExactly(result.providerSessionId());
    assertThat(db.tx((Handle h) -> harness.identities.read(h, SESSION)))
        .isEqualTo(new SessionIdentity(result.providerSessionId(), result.providerSessionId()));
    ExecutorRecord executor = harness.executor(SESSION);
    assertThat(executor.status()).isEqualTo("running");
    assertThat(executor.pid()).isEqualTo(result.pid());
    assertThat(executor.agentExecutionId()).isEqualTo(result.executionId());
    assertThat(executor.host()).isEqualTo(AcpHarness.HOST);
    assertThat(executor.workerInstance()).isEqualTo(AcpHarness.INSTANCE);
    assertThat(harness.host.isRunning(SESSION)).isTrue();
    assertThat(ProcessHandle.of(result.pid())).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
    assertThat(db.fixtures().string("SELECT state FROM task_sessions WHERE id = ?", SESSION))
        .as("the launch leaves the session state to the workflow").isEqualTo("STARTING");
  }

  @Test
  void launchWithStoredTokenLoadsThatSessionAndTheTranscriptHasNoDuplicates() throws Exception {
    harness.start(TestAgent.profile("normal", harness.stateDir));
    freshSession();
    String token = harness.launch(SESSION).providerSessionId();
    settleWaitingForInput();
    harness.turns.prompt(SESSION, "first question");
    harness.turns.prompt(SESSION, "second question");
    harness.host.stop(SESSION);
    List<TranscriptEntry> before = db.tx(h -> TestStores.transcript(h, SESSION));
    assertThat(before).extracting(TranscriptEntry::role).containsExactly("user", "agent", "user", "agent");

    LaunchResult loaded = harness.launch(SESSION);
    harness.host.stop(SESSION);
    LaunchResult loadedAgain = harness.launch(SESSION);

    assertThat(loaded.loaded()).isTrue();
    assertThat(loaded.providerSessionId()).isEqualTo(token);
    assertThat(loaded.replayedMessages()).isEqualTo(4);
    assertThat(loadedAgain.replayedMessages()).isEqualTo(4);
    assertThat(db.tx((Handle h) -> TestStores.transcript(h, SESSION))).isEqualTo(before);
    harness.assertTokenUnchanged(SESSION, token);
    assertThat(TestAgent.storedSessions(harness.stateDir)).containsExactly(token);
  }

  @Test
  void partialReplayOfTheLastMessagesIsRecognisedToo() {
    harness.start(AgentProfiles.of(TestAgent.profile("normal", harness.stateDir, "--replay=1")),
        AcpHarness.TIMEOUTS, PermissionPolicy.ALLOW);
    freshSession();
    harness.launch(SESSION);
    settleWaitingForInput();
    harness.turns.prompt(SESSION, "same");
    harness.turns.prompt(SESSION, "same");
    harness.host.stop(SESSION);

    LaunchResult loaded = harness.launch(SESSION);

    assertThat(loaded.replayedMessages()).isEqualTo(1);
    assertThat(harness.messages(SESSION)).isEqualTo(4);
  }

  @Test
  void replayOfHistoryTheTranscriptLacksIsPersistedOnce() {
    harness.start(TestAgent.profile("normal", harness.stateDir));
    freshSession();
    String token = harness.launch(SESSION).providerSessionId();
    settleWaitingForInput();
    harness.turns.prompt(SESSION, "question");
    harness.host.stop(SESSION);
    db.fixtures().exec("DELETE FROM session_messages WHERE session_id = ?", SESSION);

    harness.launch(SESSION);
    harness.host.stop(SESSION);
    harness.launch(SESSION);

    assertThat(db.tx((Handle h) -> TestStores.transcript(h, SESSION))).extracting(TranscriptEntry::role, TranscriptEntry::content)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("user", "question"),
            org.assertj.core.groups.Tuple.tuple("agent", "Working on: question"));
    harness.assertTokenUnchanged(SESSION, token);
  }

  @Test
  void newSessionIdIsPersistedOnlyUnderTheCurrentFence() {
    harness.start(TestAgent.profile("normal", harness.stateDir));
    freshSession();
    ResumeLockStore locks = new ResumeLockStore();
    Fence stale = db.tx(h -> locks.acquire(h, SESSION, "old-owner", Duration.ofMinutes(5))).orElseThrow().fence();
    db.tx(h -> locks.release(h, SESSION, "old-owner"));
    db.tx(h -> locks.acquire(h, SESSION, "new-owner", Duration.ofMinutes(5))).orElseThrow();

    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> harness.host.launch(
        new LaunchRequest(SESSION, "test-agent", harness.workspace, Map.of(), stale)));

    assertThat(thrown).isInstanceOf(StaleFenceException.class);
    assertThat(db.tx((Handle h) -> harness.identities.read(h, SESSION))).isEqualTo(new SessionIdentity("", ""));
    assertThat(harness.host.isRunning(SESSION)).isFalse();
    assertThat(harness.executor(SESSION).status()).isEqualTo("failed");
  }

  @Test
  void childEnvironmentHoldsOnlyWhatTheProfileAndTheCredentialsPass() {
    harness.start(TestAgent.profile("normal", harness.stateDir, Map.of("PROFILE_VAR", "from-profile")));
    freshSession();
    harness.launch(SESSION, Map.of("CRED_VAR", "from-credentials"));
    settleWaitingForInput();

    assertThat(harness.turns.prompt(SESSION, "env:PROFILE_VAR").responseText()).contains("PROFILE_VAR=from-profile");
    assertThat(harness.turns.prompt(SESSION, "env:CRED_VAR").responseText()).contains("CRED_VAR=from-credentials");
    assertThat(harness.turns.prompt(SESSION, "env:PATH").responseText()).doesNotContain("PATH=<unset>");
    String workerOnly = System.getenv().keySet().stream()
        .filter(k -> !AgentEnvironment.PASSED_THROUGH.contains(k)).findFirst().orElseThrow();
    assertThat(harness.turns.prompt(SESSION, "env:" + workerOnly).responseText()).contains(workerOnly + "=<unset>");
  }

  @Test
  void relaunchReplacesTheAgentTheHostStillRuns() {
    harness.start(TestAgent.profile("normal", harness.stateDir));
    freshSession();
    LaunchResult first = harness.launch(SESSION);

    LaunchResult second = harness.launch(SESSION);

    assertThat(second.loaded()).isTrue();
    assertThat(second.providerSessionId()).isEqualTo(first.providerSessionId());
    assertThat(ProcessHandle.of(first.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(harness.executor(SESSION).pid()).isEqualTo(second.pid());
  }
}
