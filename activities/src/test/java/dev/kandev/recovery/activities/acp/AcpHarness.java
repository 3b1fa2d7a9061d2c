package dev.kandev.recovery.activities.acp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.Fence;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.TranscriptStore;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TestDatabase;
import org.jdbi.v3.core.Handle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Shared setup of the ACP tests: an {@link AgentHost} on the test database with short timeouts. */
final class AcpHarness implements AutoCloseable {
  static final String HOST = "test-host";
  static final String INSTANCE = "worker-1";
  static final AcpTimeouts TIMEOUTS =
      new AcpTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(15), Duration.ofSeconds(15),
          Duration.ofSeconds(15), Duration.ofSeconds(3));
  static final Duration TURN_TIMEOUT = Duration.ofSeconds(30);

  final TestDatabase db;
  final Fixtures fixtures;
  final SessionIdentityStore identities;
  final ExecutorsRunningStore executors;
  final TranscriptStore transcripts;
  final AgentHost host;
  final PromptTurns turns;

  AcpHarness(TestDatabase db, AgentProfiles profiles, AcpTimeouts timeouts, PermissionPolicy policy) {
    this(db, profiles, timeouts, policy, AgentCommands.AS_CONFIGURED);
  }

  AcpHarness(TestDatabase db, AgentProfiles profiles, AcpTimeouts timeouts, PermissionPolicy policy,
      AgentCommands commands) {
    this.db = db;
    this.fixtures = db.fixtures();
    this.identities = new SessionIdentityStore();
    this.executors = new ExecutorsRunningStore();
    this.transcripts = new TranscriptStore();
    this.host = new AgentHost(new AgentHostSettings(HOST, INSTANCE, profiles, timeouts, policy,
        AgentHostSettings.inheritedFrom(System.getenv()), commands), db.transactions(), identities, executors, transcripts);
    this.turns = new PromptTurns(host, db.transactions(), TURN_TIMEOUT, timeouts.stopGrace());
  }

  AcpHarness(TestDatabase db, AgentProfile profile) {
    this(db, AgentProfiles.of(profile), TIMEOUTS, PermissionPolicy.ALLOW);
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
    return fixtures.count("SELECT count(*) FROM session_messages WHERE session_id = ?", sessionId);
  }

  @Override
  public void close() {
    host.close();
  }
}
