package dev.kandev.recovery.activities.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.SessionState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The worker stops its own agents that no session wants any more, and only those. */
class UnownedAgentReaperTest {
  private static final String SESSION = "s-1";

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final AcpHarness harness = new AcpHarness(db);
  private UnownedAgentReaper reaper;
  private long pid;

  @BeforeEach
  void launch() {
    harness.start(TestAgent.profile("normal", harness.stateDir));
    reaper = new UnownedAgentReaper(harness.host, db.transactions(), new MirrorSessionStore(Json.mapper()), harness.executors);
    db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", "test-agent", SessionState.STARTING, "{}");
    pid = harness.launch(SESSION, harness.workspace).pid();
  }

  private void sessionIs(String state) {
    db.fixtures().exec("UPDATE task_sessions SET state = ? WHERE id = ?", state, SESSION);
  }

  private boolean processAlive() {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Test
  void agentsOfSessionsBeingResumedIdleOrInATurnKeepRunning() {
    for (String state : new String[] {"STARTING", "WAITING_FOR_INPUT", "RUNNING"}) {
      sessionIs(state);
      assertThat(reaper.reapOnce()).as(state).isEmpty();
    }
    assertThat(harness.host.isRunning(SESSION)).isTrue();
    assertThat(harness.executor(SESSION).status()).isEqualTo("running");
  }

  @Test
  void anAgentWhoseSessionWasRestoredToFailedIsStopped() {
    sessionIs("WAITING_FOR_INPUT");
    sessionIs("FAILED");

    assertThat(reaper.reapOnce()).containsExactly(SESSION);

    assertThat(harness.host.isRunning(SESSION)).isFalse();
    assertThat(processAlive()).isFalse();
    assertThat(harness.executor(SESSION).status()).isEqualTo("stopped");
    assertThat(harness.executor(SESSION).errorMessage()).contains("the session is FAILED");
    assertThat(reaper.reapOnce()).as("nothing left to stop").isEmpty();
  }

  @Test
  void anAgentThatALaterLaunchReplacedIsStoppedAndTheLaterLaunchsRowKept() {
    db.fixtures().exec("UPDATE executors_running SET agent_execution_id = 'later-launch' WHERE session_id = ?", SESSION);

    assertThat(reaper.reapOnce()).containsExactly(SESSION);

    assertThat(processAlive()).isFalse();
    assertThat(harness.executor(SESSION).agentExecutionId()).isEqualTo("later-launch");
    assertThat(harness.executor(SESSION).status()).isEqualTo("running");
  }
}
