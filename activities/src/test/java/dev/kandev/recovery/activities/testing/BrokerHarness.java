package dev.kandev.recovery.activities.testing;

import dev.kandev.recovery.activities.credentials.CredentialResolver;
import dev.kandev.recovery.activities.credentials.IssuedToken;
import dev.kandev.recovery.activities.credentials.LeaseGrant;
import dev.kandev.recovery.activities.credentials.LeaseScope;
import dev.kandev.recovery.activities.credentials.broker.CredentialBroker;
import dev.kandev.recovery.activities.credentials.broker.CredentialPolicyResolver;
import dev.kandev.recovery.activities.credentials.github.GitHubAppCredentialResolver;
import dev.kandev.recovery.activities.credentials.github.GitHubAppSettings;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.testing.CredentialFixtures;
import dev.kandev.recovery.activities.testing.FakeGitHubServer;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.MutableClock;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.TestKeys;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import java.security.KeyPair;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A broker over a test schema with: workspace {@code ws-1}, task {@code t1}, session {@code s1}
 * (STARTING), repository {@code r1} = github.com/acme/widgets linked to t1, workspace policy
 * github_app with installation 42 and contents:write, and a {@link FakeGitHubServer} as GitHub.
 * A JUnit extension, set up before each test and closed after it; register it after the
 * {@link TestDatabase} it uses: {@code @RegisterExtension @Order(2) final BrokerHarness h = new BrokerHarness(db);}.
 */
public final class BrokerHarness implements BeforeEachCallback, AfterEachCallback {
  public static final String APP_ID = "12345";
  public static final long INSTALLATION = 42;

  public final TestDatabase db;
  public final MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.MICROS));
  public final KeyPair appKeys = TestKeys.appKeyPair();
  public final SessionStore sessions = new MirrorSessionStore(Json.mapper());
  public Fixtures fixtures;
  public CredentialFixtures rows;
  public FakeGitHubServer github;
  public CredentialBroker broker;

  public BrokerHarness(TestDatabase db) {
    this.db = db;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    fixtures = db.fixtures();
    rows = new CredentialFixtures(fixtures);
    github = new FakeGitHubServer((RSAPublicKey) appKeys.getPublic(), APP_ID, INSTALLATION,
        Set.of("widgets", "gadgets"), Map.of("contents", "write", "pull_requests", "write", "metadata", "read"));
    broker = broker(Optional.of(new GitHubAppSettings(APP_ID, TestKeys.pkcs1Pem(appKeys.getPrivate()), github.apiBase())));
    fixtures.task("t1", "ws-1", "IN_PROGRESS");
    fixtures.session("s1", "t1", "test-agent", SessionState.STARTING, "{}");
    rows.repository("r1", "ws-1", "github.com", "acme", "widgets").link("t1", "r1", 0);
    rows.workspacePolicy("ws-1", "github_app", INSTALLATION, "{\"contents\":\"write\"}");
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (github != null) {
      github.close();
    }
  }

  public CredentialBroker broker(Optional<GitHubAppSettings> app) {
    // GitHub JWTs use the real clock (the fake checks iat/exp against it); leases use the test clock.
    CredentialResolver githubApp = new GitHubAppCredentialResolver(app, Json.mapper(), Clock.systemUTC());
    return new CredentialBroker(db.transactions(), new CredentialPolicyResolver(Json.mapper()),
        List.of(githubApp), Json.mapper(), clock);
  }

  /** The production wiring (as the worker's Components does it), for tests that need only real-clock behaviour. */
  public CredentialBroker defaultBroker(Optional<GitHubAppSettings> app) {
    return new CredentialBroker(db.transactions(), new CredentialPolicyResolver(Json.mapper()),
        List.of(new GitHubAppCredentialResolver(app, Json.mapper(), Clock.systemUTC())), Json.mapper(), Clock.systemUTC());
  }

  public LeaseScope scope() {
    return LeaseScope.github("ws-1", "t1", "s1", "r1", "github.com", "acme/widgets");
  }

  /** Issues s1's leases the way a resume does, and returns the grant of its first repository. */
  public LeaseGrant issue() {
    return issue(broker);
  }

  /** {@link #issue()} with another broker over the same rows. */
  public LeaseGrant issue(CredentialBroker broker) {
    return broker.issueForSession("s1", CredentialBroker.DEFAULT_TTL).get(0);
  }

  /** {@link #issue()} for s1 as a session of executor {@code executorId} ({@code task_sessions.executor_id}). */
  public LeaseGrant issueUnder(String executorId) {
    fixtures.exec("UPDATE task_sessions SET executor_id = ? WHERE id = 's1'", executorId);
    return issue();
  }

  /** A minted lease token of s1's first repository. */
  public IssuedToken mintedToken() {
    return broker.mintToken(issue().leaseId());
  }

  /** A guarded transition, as the workflow's activities make it. */
  public void moveSession(SessionState from, SessionState to) {
    db.tx(h -> sessions.transition(h, "s1", Set.of(from), to, "test", "", Fence.none()));
  }
}
