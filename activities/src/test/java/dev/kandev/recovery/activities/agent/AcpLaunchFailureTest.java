package dev.kandev.recovery.activities.agent;

import static dev.kandev.recovery.workflows.model.AgentFailureClass.AGENT_CANNOT_LOAD_SESSIONS;
import static dev.kandev.recovery.workflows.model.AgentFailureClass.AGENT_EXITED_BEFORE_INITIALIZE;
import static dev.kandev.recovery.workflows.model.AgentFailureClass.AGENT_INITIALIZE_FAILED;
import static dev.kandev.recovery.workflows.model.AgentFailureClass.AGENT_PROCESS_START_FAILED;
import static dev.kandev.recovery.workflows.model.AgentFailureClass.AGENT_SESSION_LOAD_REJECTED;
import static dev.kandev.recovery.workflows.model.AgentFailureClass.AGENT_SESSION_NEW_FAILED;
import static dev.kandev.recovery.workflows.model.AgentFailureClass.AGENT_TRANSPORT_CLOSED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kandev.recovery.activities.acp.AcpTimeouts;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.SessionIdentity;
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

/** Every launch failure class, produced by a real child process; none of them touches the token. */
class AcpLaunchFailureTest {
  private static final String SESSION = "s-1";
  private static final String TOKEN = "sess_stored0000000000000000000001";

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final AcpHarness harness = new AcpHarness(db);

  private AgentLaunchException launchFailing(AgentProfile profile, AcpTimeouts timeouts, String token) {
    harness.start(AgentProfiles.of(profile), timeouts, PermissionPolicy.ALLOW);
    if (token != null) {
      db.fixtures().sessionWithToken(SESSION, SessionState.STARTING, token);
    } else {
      db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", "test-agent", SessionState.STARTING, "{}");
    }
    return catchThrowableOfType(
        AgentLaunchException.class, () -> harness.launch(SESSION, Map.of("GH_TOKEN", "ghs_secretvalue123")));
  }

  private AgentLaunchException launchFailing(String mode, String token) {
    return launchFailing(TestAgent.profile(mode, harness.stateDir), AcpHarness.TIMEOUTS, token);
  }

  /**
   * The launch failed and left no agent, its executor row says so, and the session's identity is as
   * it was: {@code token} kept, or (null) none.
   */
  private void assertFailedAndReaped(AgentLaunchException e, String token) {
    if (token == null) {
      assertThat(db.tx((Handle h) -> harness.identities.read(h, SESSION))).isEqualTo(new SessionIdentity("", ""));
    } else {
      harness.assertTokenUnchanged(SESSION, token);
    }
    ExecutorRecord executor = harness.executor(SESSION);
    assertThat(executor.status()).isEqualTo("failed");
    assertThat(executor.pid()).isNull();
    assertThat(executor.host()).isEqualTo(AcpHarness.HOST);
    assertThat(executor.workerInstance()).isEqualTo(AcpHarness.INSTANCE);
    assertThat(executor.errorMessage()).startsWith(e.failureClass().type());
    assertThat(harness.host.isRunning(SESSION)).isFalse();
    assertThat(e.getMessage()).doesNotContain("ghs_secretvalue123");
  }

  @Test
  void childExitingBeforeInitializeKeepsTheToken() {
    AgentLaunchException e = launchFailing("exit-before-initialize", TOKEN);

    assertThat(e.failureClass()).isEqualTo(AGENT_EXITED_BEFORE_INITIALIZE);
    assertThat(e.retryable()).isTrue();
    assertThat(e.exitCode()).isEqualTo(3);
    assertThat(e.stderrTail()).contains("exiting before initialize as configured");
    assertThat(e.acpError()).isNull();
    assertThat(e.getMessage()).contains("AGENT_EXITED_BEFORE_INITIALIZE", "exit code 3", "exiting before initialize");
    assertFailedAndReaped(e, TOKEN);
  }

  @Test
  void initializeTimeoutKeepsTheTokenAndKillsTheChild() {
    AgentLaunchException e = launchFailing(
        TestAgent.profile("hang-initialize", harness.stateDir), AcpHarness.TIMEOUTS.withInitialize(Duration.ofSeconds(2)), TOKEN);

    assertThat(e.failureClass()).isEqualTo(AGENT_INITIALIZE_FAILED);
    assertThat(e.exitCode()).as("killed while still running").isNull();
    assertThat(e.stderrTail()).contains("not answering initialize as configured");
    assertThat(e.getMessage()).contains("initialize was not answered within PT2S");
    assertFailedAndReaped(e, TOKEN);
  }

  @Test
  void transportClosingBeforeSessionLoadKeepsTheToken() {
    AgentLaunchException e = launchFailing("close-before-load", TOKEN);

    assertThat(e.failureClass()).isEqualTo(AGENT_TRANSPORT_CLOSED);
    assertThat(e.retryable()).isTrue();
    assertThat(e.exitCode()).isEqualTo(4);
    assertThat(e.stderrTail()).contains("closing stdout before answering session/load");
    assertThat(e.getMessage()).contains("transport closed before session/load of " + TOKEN);
    assertFailedAndReaped(e, TOKEN);
  }

  @Test
  void transportClosingBeforeSessionNewPersistsNoIdentity() {
    AgentLaunchException e = launchFailing("close-before-new", null);

    assertThat(e.failureClass()).isEqualTo(AGENT_TRANSPORT_CLOSED);
    assertThat(e.exitCode()).isEqualTo(6);
    assertThat(e.stderrTail()).contains("closing stdout before answering session/new");
    assertThat(e.getMessage()).contains("transport closed before session/new completed");
    assertFailedAndReaped(e, null);
  }

  @Test
  void rejectedLoadKeepsTheTokenAndNeverStartsANewSession() {
    AgentLaunchException e = launchFailing("reject-load", TOKEN);

    assertThat(e.failureClass()).isEqualTo(AGENT_SESSION_LOAD_REJECTED);
    assertThat(e.retryable()).isFalse();
    assertThat(e.acpError()).startsWith("-32002 Resource not found");
    assertThat(e.stderrTail()).contains("session/load " + TOKEN);
    assertThat(TestAgent.storedSessions(harness.stateDir)).as("no session/new fallback").isEmpty();
    assertFailedAndReaped(e, TOKEN);
  }

  @Test
  void unknownStoredSessionIsRejectedByANormalAgentAndKeepsTheToken() {
    AgentLaunchException e = launchFailing("normal", TOKEN);

    assertThat(e.failureClass()).isEqualTo(AGENT_SESSION_LOAD_REJECTED);
    assertThat(e.acpError()).contains("-32002", "unknown session " + TOKEN);
    harness.assertTokenUnchanged(SESSION, TOKEN);
    assertThat(TestAgent.storedSessions(harness.stateDir)).isEmpty();
  }

  @Test
  void agentThatCannotLoadSessionsKeepsTheTokenWithoutTryingNewSession() {
    AgentLaunchException e = launchFailing("no-load-session", TOKEN);

    assertThat(e.failureClass()).isEqualTo(AGENT_CANNOT_LOAD_SESSIONS);
    assertThat(e.retryable()).isFalse();
    assertThat(e.getMessage()).contains("does not declare the loadSession capability", "kandev-test-agent");
    assertThat(e.stderrTail()).doesNotContain("session/load", "session/new");
    assertThat(TestAgent.storedSessions(harness.stateDir)).isEmpty();
    assertFailedAndReaped(e, TOKEN);
  }

  @Test
  void processThatCannotStartKeepsTheToken() {
    AgentProfile missing = new AgentProfile("test-agent", List.of("/nonexistent/kandev-agent", "acp"), Map.of(), null);
    AgentLaunchException e = launchFailing(missing, AcpHarness.TIMEOUTS, TOKEN);

    assertThat(e.failureClass()).isEqualTo(AGENT_PROCESS_START_FAILED);
    assertThat(e.retryable()).isFalse();
    assertThat(e.exitCode()).isNull();
    assertThat(e.getMessage()).contains("/nonexistent/kandev-agent");
    assertFailedAndReaped(e, TOKEN);
  }

  @Test
  void unknownAgentIdFailsToStartListingTheKnownIds() {
    harness.start(TestAgent.profile("normal", harness.stateDir));
    db.fixtures().sessionWithToken(SESSION, SessionState.STARTING, TOKEN);

    AgentLaunchException e = catchThrowableOfType(AgentLaunchException.class,
        () -> harness.host.launch(new LaunchRequest(SESSION, "nope", harness.workspace, Map.of(),
            dev.kandev.recovery.workflows.model.Fence.none())));

    assertThat(e.failureClass()).isEqualTo(AGENT_PROCESS_START_FAILED);
    assertThat(e.getMessage()).contains("unknown agent profile 'nope'", "[test-agent]");
    harness.assertTokenUnchanged(SESSION, TOKEN);
  }

  @Test
  void failingSessionNewLeavesTheIdentityEmpty() {
    AgentLaunchException e = launchFailing("reject-new", null);

    assertThat(e.failureClass()).isEqualTo(AGENT_SESSION_NEW_FAILED);
    assertThat(e.retryable()).isFalse();
    assertThat(e.acpError()).startsWith("-32000 Authentication required");
    assertFailedAndReaped(e, null);
  }

  @Test
  void credentialValuesEchoedByTheAgentAreMaskedInTheFailure() {
    AgentLaunchException e = launchFailing(
        TestAgent.profile("exit-before-initialize", harness.stateDir, Map.of("KANDEV_TEST_AGENT_ECHO_ENV", "GH_TOKEN")),
        AcpHarness.TIMEOUTS, TOKEN);

    assertThat(e.stderrTail()).contains("env GH_TOKEN=***").doesNotContain("ghs_secretvalue123");
    assertThat(harness.executor(SESSION).errorMessage()).doesNotContain("ghs_secretvalue123");
  }
}
