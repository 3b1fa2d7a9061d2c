package dev.kandev.recovery.activities.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.acp.AcpTimeouts;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.store.MirrorTranscriptStore;
import dev.kandev.recovery.activities.store.MirrorSessionIdentityStore;
import dev.kandev.recovery.activities.store.MirrorExecutorsRunningStore;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.TranscriptStore;
import dev.kandev.recovery.activities.testing.TempFolders;
import dev.kandev.recovery.activities.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Shared setup of the ACP tests: an {@link AgentHost} on the test database with short timeouts. A
 * JUnit extension registered after the {@link TestDatabase} it uses
 * ({@code @RegisterExtension @Order(2) final AcpHarness harness = new AcpHarness(db);}); a test
 * starts the host with the profiles it needs, and the extension stops it (and its agents) after
 * the test, before the schema is dropped and its folders are deleted.
 */
final class AcpHarness implements BeforeEachCallback, AfterEachCallback {
  static final String HOST = "test-host";
  static final String INSTANCE = "worker-1";
  static final AcpTimeouts TIMEOUTS =
      new AcpTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(15), Duration.ofSeconds(15),
          Duration.ofSeconds(15), Duration.ofSeconds(3));
  static final Duration TURN_TIMEOUT = Duration.ofSeconds(30);

  final TestDatabase db;
  final SessionIdentityStore identities = new MirrorSessionIdentityStore();
  final ExecutorsRunningStore executors = new MirrorExecutorsRunningStore();
  final TranscriptStore transcripts = new MirrorTranscriptStore();
  /** The host {@link #start} made, and its prompt turns. */
  AgentHost host;
  PromptTurns turns;
  /** A new agent workspace and test agent state folder (where it stores its sessions) for each test. */
  Path workspace;
  Path stateDir;

  AcpHarness(TestDatabase db) {
    this.db = db;
  }

  /** Starts a host with these profiles, timeouts and permission policy (stopping the previous one). */
  AcpHarness start(AgentProfiles profiles, AcpTimeouts timeouts, PermissionPolicy policy) {
    return start(profiles, timeouts, policy, AgentProfile::argv);
  }

  /** The same, with {@code commands} deciding what a profile's launch runs. */
  AcpHarness start(AgentProfiles profiles, AcpTimeouts timeouts, PermissionPolicy policy, AgentCommands commands) {
    close();
    host = new AgentHost(new AgentHostSettings(HOST, INSTANCE, profiles, timeouts, policy,
        AgentHostSettings.inheritedFrom(System.getenv()), commands), db.transactions(), identities, executors, transcripts);
    turns = new PromptTurns(host, db.transactions(), TURN_TIMEOUT, timeouts.stopGrace());
    return this;
  }

  /** Starts a host with one profile, the short timeouts and the allow-all policy. */
  AcpHarness start(AgentProfile profile) {
    return start(AgentProfiles.of(profile), TIMEOUTS, PermissionPolicy.ALLOW);
  }

  /** Launches the session's agent in this test's {@link #workspace}. */
  LaunchResult launch(String sessionId) {
    return launch(sessionId, workspace);
  }

  LaunchResult launch(String sessionId, Map<String, String> credentials) {
    return launch(sessionId, workspace, credentials);
  }

  LaunchResult launch(String sessionId, Path workspace) {
    return launch(sessionId, workspace, Map.of());
  }

  LaunchResult launch(String sessionId, Path workspace, Map<String, String> credentials) {
    return host.launch(new LaunchRequest(sessionId, "test-agent", workspace, credentials, Fence.none()));
  }

  void assertTokenUnchanged(String sessionId, String token) {
    assertThat(db.tx((Handle h) -> identities.read(h, sessionId))).isEqualTo(new SessionIdentity(token, token));
  }

  ExecutorRecord executor(String sessionId) {
    return db.tx(h -> executors.find(h, sessionId)).orElseThrow();
  }

  long messages(String sessionId) {
    return db.fixtures().count("SELECT count(*) FROM session_messages WHERE session_id = ?", sessionId);
  }

  /** Stops the host and its agents. */
  void close() {
    if (host != null) {
      host.close();
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    workspace = TempFolders.create(context, "acp-workspace-");
    stateDir = TempFolders.create(context, "acp-agent-state-");
  }

  @Override
  public void afterEach(ExtensionContext context) {
    close();
  }
}
