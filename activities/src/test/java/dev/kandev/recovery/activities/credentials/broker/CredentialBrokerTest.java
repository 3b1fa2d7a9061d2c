package dev.kandev.recovery.activities.credentials.broker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.RUNNING;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.GitCredential;
import dev.kandev.recovery.activities.credentials.IssuedToken;
import dev.kandev.recovery.activities.credentials.LeaseGrant;
import dev.kandev.recovery.activities.credentials.LeaseScope;
import dev.kandev.recovery.activities.credentials.github.GitHubAppSettings;
import dev.kandev.recovery.activities.store.CredentialScopeStore;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.BrokerHarness;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.TestKeys;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import dev.kandev.recovery.workflows.model.SessionState;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class CredentialBrokerTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final BrokerHarness h = new BrokerHarness(db);

  private static void assertRejected(ThrowingCallable call, FailureType type, String message) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(CredentialException.class, e -> {
          assertThat(e.type()).isEqualTo(type);
          assertThat(e.retryable()).isFalse();
        })
        .hasMessageContaining(message);
  }

  /** The authorization every issuance, mint and redemption applies, for a scope the rows would never give. */
  private void authorize(LeaseScope scope) {
    db.run(handle -> ScopeAuthorizer.authorize(handle, new CredentialScopeStore(), scope));
  }

  private long leases() {
    return h.fixtures.count("SELECT count(*) FROM credential_leases");
  }

  // --- issuance -------------------------------------------------------------------------------

  @Test
  void issueWhileStartingCreatesALeaseWithoutTokenAndANonSecretSnapshot() {
    LeaseGrant grant = h.issue();

    assertThat(grant.leaseId()).startsWith("lease-");
    assertThat(grant.expiresAt()).isEqualTo(h.clock.instant().plus(Duration.ofHours(12)));
    GitCredentialSnapshot s = grant.snapshot();
    assertThat(s.version()).isEqualTo(1);
    assertThat(s.policy()).isEqualTo("github_app");
    assertThat(s.provider()).isEqualTo("github");
    assertThat(s.host()).isEqualTo("github.com");
    assertThat(s.repository()).isEqualTo("acme/widgets");
    assertThat(s.installationId()).isEqualTo(42L);
    assertThat(s.permissions()).isEqualTo(Map.of("contents", "write"));
    assertThat(s.leaseId()).isEqualTo(grant.leaseId());
    assertThat(s.expiresAt()).isEqualTo(grant.expiresAt().toString());
    assertThat(s.source()).isEqualTo("workspace");
    assertThat(Instant.parse(s.capturedAt())).isEqualTo(h.clock.instant());
    assertThat(h.fixtures.string("SELECT session_id || ' ' || repository_id || ' ' || host || path || ' '"
        + " || (token_hash IS NULL) FROM credential_leases WHERE id = ?", grant.leaseId()))
        .isEqualTo("s1 r1 github.com/acme/widgets true");
    assertThat(h.github.calls()).as("issuance does not call GitHub").isZero();
  }

  @ParameterizedTest
  @EnumSource(value = SessionState.class, names = {"COMPLETED", "FAILED", "CANCELLED"})
  void issueRejectsEveryTerminalState(SessionState terminal) {
    h.moveSession(STARTING, terminal);

    assertRejected(() -> h.issue(), FailureType.CREDENTIAL_SESSION_TERMINAL, "session is terminal");
    assertThat(leases()).isZero();
  }

  @ParameterizedTest
  @EnumSource(value = SessionState.class, names = {"CREATED", "STARTING", "RUNNING", "IDLE", "WAITING_FOR_INPUT"})
  void issueAcceptsEveryNonTerminalState(SessionState state) {
    h.fixtures.exec("UPDATE task_sessions SET state = ? WHERE id = 's1'", state.name());

    assertThat(h.issue().leaseId()).isNotNull();
  }

  @Test
  void aSessionMovedToTerminalJustBeforeIssuanceIsRejected() {
    h.moveSession(STARTING, RUNNING);
    LeaseScope scope = h.scope();
    h.moveSession(RUNNING, FAILED);

    assertRejected(() -> authorize(scope), FailureType.CREDENTIAL_SESSION_TERMINAL, "session is terminal");
  }

  @Test
  void issuanceRacingATerminalTransitionWaitsForItAndSeesTheCommittedState() throws Exception {
    var pool = java.util.concurrent.Executors.newSingleThreadExecutor();
    try (java.sql.Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (var update = c.createStatement()) {
        update.execute("UPDATE task_sessions SET state = 'CANCELLED' WHERE id = 's1'");
      }
      long transition = backendPid(c);
      var issuing = pool.submit(() -> h.issue());
      Await.until(() -> blockedBy(transition), n -> n > 0, Duration.ofSeconds(10),
          "the issuance to wait on the in-flight transition's row lock (backends blocked by it)");
      assertThat(issuing.isDone()).as("issuance waits for the in-flight transition").isFalse();
      c.commit();

      assertThatThrownBy(() -> issuing.get(10, java.util.concurrent.TimeUnit.SECONDS))
          .hasCauseInstanceOf(CredentialException.class)
          .hasMessageContaining("session is terminal");
    } finally {
      pool.shutdownNow();
    }
    assertThat(leases()).isZero();
  }

  private static long backendPid(java.sql.Connection c) throws java.sql.SQLException {
    try (var query = c.createStatement(); var rows = query.executeQuery("SELECT pg_backend_pid()")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /** How many database sessions wait on a lock held by the session with process id {@code pid}. */
  private long blockedBy(long pid) {
    return h.fixtures.count("SELECT count(*) FROM pg_stat_activity WHERE ?::int = ANY(pg_blocking_pids(pid))", pid);
  }

  /** Scopes the rows never give session s1 of task t1 in workspace ws-1 with repository r1 (acme/widgets). */
  static Stream<Arguments> scopesOutsideTheSession() {
    return Stream.of(
        Arguments.of("an unknown session", LeaseScope.github("ws-1", "t1", "nope", "r1", "github.com", "acme/widgets"),
            "unknown session nope"),
        Arguments.of("a session of another task", LeaseScope.github("ws-1", "t1", "s2", "r1", "github.com", "acme/widgets"),
            "session does not belong to task"),
        Arguments.of("a task of another workspace", LeaseScope.github("ws-2", "t1", "s1", "r1", "github.com", "acme/widgets"),
            "task does not belong to workspace"),
        Arguments.of("an unlinked repository", LeaseScope.github("ws-1", "t1", "s1", "r2", "github.com", "acme/gadgets"),
            "repository is not linked to task"),
        Arguments.of("another path", LeaseScope.github("ws-1", "t1", "s1", "r1", "github.com", "evil/widgets"),
            "does not match host and path"),
        Arguments.of("another host", LeaseScope.github("ws-1", "t1", "s1", "r1", "ghe.example.com", "acme/widgets"),
            "does not match host and path"));
  }

  @ParameterizedTest(name = "issue rejects {0}")
  @MethodSource("scopesOutsideTheSession")
  void issueRejectsAScopeOutsideTheSession(String what, LeaseScope scope, String message) {
    h.fixtures.task("t2", "ws-1", "IN_PROGRESS").session("s2", "t2", "test-agent", STARTING, "{}");
    h.rows.repository("r2", "ws-1", "github.com", "acme", "gadgets");

    assertRejected(() -> authorize(scope), FailureType.CREDENTIAL_SCOPE_DENIED, message);
  }

  @Test
  void issueWithoutAppConfigurationIsConfigMissing() {
    CredentialBroker unconfigured = h.broker(Optional.empty());

    assertRejected(() -> h.issue(unconfigured), FailureType.CREDENTIAL_CONFIG_MISSING, "KANDEV_GITHUB_APP_ID");
    assertThat(leases()).isZero();
  }

  @Test
  void issueWithAMalformedPrivateKeyIsConfigInvalid() {
    String pem = "-----BEGIN RSA PRIVATE KEY-----\nAAAAAAAAAAAA\n-----END RSA PRIVATE KEY-----\n";
    CredentialBroker broken = h.broker(Optional.of(new GitHubAppSettings(BrokerHarness.APP_ID, pem, h.github.apiBase())));

    assertRejected(() -> h.issue(broken), FailureType.CREDENTIAL_CONFIG_INVALID, "private key is malformed");
  }

  @Test
  void ttlIsClampedToTwelveHours() {
    assertThat(CredentialBroker.clampTtl(Duration.ZERO)).isEqualTo(Duration.ofHours(12));
    assertThat(CredentialBroker.clampTtl(Duration.ofHours(-1))).isEqualTo(Duration.ofHours(12));
    assertThat(CredentialBroker.clampTtl(Duration.ofHours(13))).isEqualTo(Duration.ofHours(12));
    assertThat(CredentialBroker.clampTtl(null)).isEqualTo(Duration.ofHours(12));
    assertThat(h.broker.issueForSession("s1", Duration.ofHours(1)).get(0).expiresAt())
        .isEqualTo(h.clock.instant().plus(Duration.ofHours(1)));
  }

  // --- policies -------------------------------------------------------------------------------

  @Test
  void withoutAPolicyRowThePolicyIsNoneAndNoLeaseIsIssued() {
    h.fixtures.exec("DELETE FROM workspace_credential_policies");

    LeaseGrant grant = h.issue();

    assertThat(grant.leaseId()).isNull();
    assertThat(grant.snapshot().policy()).isEqualTo("none");
    assertThat(grant.snapshot().source()).isEqualTo("default");
    assertThat(grant.snapshot().leaseId()).isNull();
    assertThat(grant.snapshot().installationId()).isNull();
    assertThat(leases()).isZero();
  }

  @Test
  void policyNoneStillAuthorizesTheScope() {
    h.rows.workspacePolicy("ws-1", "none", null, "{}");
    h.moveSession(STARTING, FAILED);

    assertRejected(() -> h.issue(), FailureType.CREDENTIAL_SESSION_TERMINAL, "session is terminal");
  }

  @Test
  void anExecutorOverrideWinsOverTheWorkspacePolicy() {
    h.rows.executorPolicy("exec-byo", "none", null, "{}")
        .executorPolicy("exec-pr", "github_app", 43L, "{\"contents\":\"write\",\"pull_requests\":\"write\"}");

    LeaseGrant none = h.issueUnder("exec-byo");
    LeaseGrant pr = h.issueUnder("exec-pr");
    LeaseGrant unknownExecutor = h.issueUnder("exec-other");

    assertThat(none.leaseId()).isNull();
    assertThat(none.snapshot()).extracting(GitCredentialSnapshot::policy, GitCredentialSnapshot::source)
        .containsExactly("none", "executor");
    assertThat(pr.snapshot()).extracting(GitCredentialSnapshot::policy, GitCredentialSnapshot::source,
        GitCredentialSnapshot::installationId).containsExactly("github_app", "executor", 43L);
    assertThat(pr.snapshot().permissions()).containsEntry("pull_requests", "write");
    assertThat(unknownExecutor.snapshot().source()).isEqualTo("workspace");
  }

  @Test
  void aChangedPolicyRowChangesTheNextIssuanceAndInvalidatesOldLeases() {
    LeaseGrant first = h.issue();
    IssuedToken token = h.broker.mintToken(first.leaseId());
    h.rows.workspacePolicy("ws-1", "github_app", BrokerHarness.INSTALLATION, "{\"contents\":\"read\"}");

    LeaseGrant second = h.issue();

    assertThat(second.snapshot().permissions()).isEqualTo(Map.of("contents", "read"));
    assertRejected(() -> h.broker.redeem(token.token(), "github.com", "acme/widgets.git", CallerCheck.ANYONE),
        FailureType.CREDENTIAL_LEASE_INVALID, "credential policy changed");
    assertRejected(() -> h.broker.mintToken(first.leaseId()), FailureType.CREDENTIAL_LEASE_INVALID, "credential policy changed");
    assertThat(h.broker.mintToken(second.leaseId()).leaseId()).isEqualTo(second.leaseId());
  }

  // --- minting and redemption -----------------------------------------------------------------

  @Test
  void mintStoresOnlyTheTokensHashAndRedeemReturnsTheInstallationToken() {
    LeaseGrant grant = h.issue();
    IssuedToken token = h.broker.mintToken(grant.leaseId());

    assertThat(token.token()).matches("[A-Za-z0-9_-]{43}");
    assertThat(token.toString()).doesNotContain(token.token()).contains(grant.leaseId());
    assertThat(h.fixtures.string("SELECT encode(token_hash, 'hex') FROM credential_leases WHERE id = ?", grant.leaseId()))
        .isEqualTo(HexFormat.of().formatHex(CredentialBroker.hash(token.token())));
    assertThat(h.fixtures.dump("credential_leases")).doesNotContain(token.token());

    GitCredential credential = h.broker.redeem(token.token(), "github.com", "acme/widgets.git", CallerCheck.ANYONE);

    assertThat(h.github.issued()).hasSize(1);
    FakeIssued issued = FakeIssued.of(h);
    assertThat(credential.username()).isEqualTo("x-access-token");
    assertThat(credential.password()).isEqualTo(issued.token);
    assertThat(issued.repositories).containsExactly("widgets");
    assertThat(issued.permissions).isEqualTo(Map.of("contents", "write"));
    assertThat(h.github.rejections()).isEmpty();
    assertThat(credential.toString()).doesNotContain(credential.password());
    assertThat(h.fixtures.dump("credential_leases")).doesNotContain(credential.password());
  }

  @Test
  void theInstallationTokenIsCachedAcrossRedemptions() {
    IssuedToken token = h.mintedToken();

    String first = h.broker.redeem(token.token(), "github.com", "/acme/widgets", CallerCheck.ANYONE).password();
    String second = h.broker.redeem(token.token(), "GitHub.com", "acme/widgets.git", CallerCheck.ANYONE).password();

    assertThat(second).isEqualTo(first);
    assertThat(h.github.calls()).isEqualTo(1);
  }

  @Test
  void redemptionIsRejectedOnceTheSessionIsTerminal() {
    IssuedToken token = h.mintedToken();
    h.moveSession(STARTING, FAILED);

    assertRejected(() -> h.broker.redeem(token.token(), "github.com", "acme/widgets.git", CallerCheck.ANYONE),
        FailureType.CREDENTIAL_SESSION_TERMINAL, "session is terminal");
    assertThat(h.github.calls()).isZero();
  }

  @Test
  void mintIsRejectedOnceTheSessionIsTerminal() {
    LeaseGrant grant = h.issue();
    h.moveSession(STARTING, FAILED);

    assertRejected(() -> h.broker.mintToken(grant.leaseId()), FailureType.CREDENTIAL_SESSION_TERMINAL, "session is terminal");
  }

  @Test
  void redemptionForAnotherRepositoryIsDenied() {
    IssuedToken token = h.mintedToken();

    assertRejected(() -> h.broker.redeem(token.token(), "github.com", "acme/gadgets.git", CallerCheck.ANYONE),
        FailureType.CREDENTIAL_SCOPE_DENIED, "is not for this repository");
    assertRejected(() -> h.broker.redeem(token.token(), "gitlab.com", "acme/widgets.git", CallerCheck.ANYONE),
        FailureType.CREDENTIAL_SCOPE_DENIED, "is not for this repository");
  }

  @Test
  void unknownAndMalformedTokensAreInvalid() {
    h.mintedToken();

    assertRejected(() -> h.broker.redeem("A".repeat(43), "github.com", "acme/widgets", CallerCheck.ANYONE),
        FailureType.CREDENTIAL_LEASE_INVALID, "unknown lease token");
    assertRejected(() -> h.broker.redeem("short", "github.com", "acme/widgets", CallerCheck.ANYONE),
        FailureType.CREDENTIAL_LEASE_INVALID, "malformed lease token");
    assertRejected(() -> h.broker.mintToken("lease-missing"), FailureType.CREDENTIAL_LEASE_INVALID, "unknown lease");
  }

  @Test
  void mintingAgainReplacesTheEarlierToken() {
    String leaseId = h.issue().leaseId();
    IssuedToken first = h.broker.mintToken(leaseId);
    IssuedToken second = h.broker.mintToken(leaseId);

    assertRejected(() -> h.broker.redeem(first.token(), "github.com", "acme/widgets", CallerCheck.ANYONE),
        FailureType.CREDENTIAL_LEASE_INVALID, "unknown lease token");
    assertThat(h.broker.redeem(second.token(), "github.com", "acme/widgets", CallerCheck.ANYONE).username()).isEqualTo("x-access-token");
  }

  // --- revocation and expiry ------------------------------------------------------------------

  @Test
  void aRevokedLeaseCannotBeMintedOrRedeemed() {
    String leaseId = h.issue().leaseId();
    IssuedToken token = h.broker.mintToken(leaseId);

    h.broker.revoke(leaseId);
    h.broker.revoke(leaseId);

    assertRejected(() -> h.broker.redeem(token.token(), "github.com", "acme/widgets", CallerCheck.ANYONE),
        FailureType.CREDENTIAL_LEASE_INVALID, "is revoked");
    assertRejected(() -> h.broker.mintToken(leaseId), FailureType.CREDENTIAL_LEASE_INVALID, "is revoked");
  }

  @Test
  void revokeSessionRevokesEveryLiveLeaseOfTheSession() {
    h.rows.repository("r2", "ws-1", "github.com", "acme", "gadgets").link("t1", "r2", 1);
    List<LeaseGrant> grants = h.broker.issueForSession("s1", null);
    IssuedToken a = h.broker.mintToken(grants.get(0).leaseId());
    IssuedToken b = h.broker.mintToken(grants.get(1).leaseId());

    assertThat(h.broker.revokeSession("s1")).isEqualTo(2);
    assertThat(h.broker.revokeSession("s1")).isZero();

    assertRejected(() -> h.broker.redeem(a.token(), "github.com", "acme/widgets", CallerCheck.ANYONE), FailureType.CREDENTIAL_LEASE_INVALID, "revoked");
    assertRejected(() -> h.broker.redeem(b.token(), "github.com", "acme/gadgets", CallerCheck.ANYONE), FailureType.CREDENTIAL_LEASE_INVALID, "revoked");
  }

  @Test
  void anExpiredLeaseCannotBeRedeemedAndRedemptionRenewsExpiry() {
    IssuedToken token = h.mintedToken();
    h.clock.advance(Duration.ofHours(11));
    h.broker.redeem(token.token(), "github.com", "acme/widgets", CallerCheck.ANYONE);

    h.clock.advance(Duration.ofHours(11));
    h.broker.redeem(token.token(), "github.com", "acme/widgets", CallerCheck.ANYONE);

    h.clock.advance(Duration.ofHours(12));
    assertRejected(() -> h.broker.redeem(token.token(), "github.com", "acme/widgets", CallerCheck.ANYONE),
        FailureType.CREDENTIAL_LEASE_INVALID, "has expired");
    assertRejected(() -> h.broker.mintToken(token.leaseId()), FailureType.CREDENTIAL_LEASE_INVALID, "has expired");
  }

  @Test
  void aCallerOutsideTheSessionsAgentGetsNothingAndGitHubIsNotAsked() {
    IssuedToken token = h.mintedToken();
    List<String> asked = new java.util.ArrayList<>();

    assertRejected(() -> h.broker.redeem(token.token(), "github.com", "acme/widgets", sessionId -> asked.add(sessionId) && false),
        FailureType.CREDENTIAL_SCOPE_DENIED, "redeems only for a process of session s1's agent");

    assertThat(asked).containsExactly("s1");
    assertThat(h.github.calls()).isZero();
    assertThat(h.fixtures.string("SELECT last_redeemed_at IS NULL FROM credential_leases")).isEqualTo("t");
  }

  @Test
  void theDefaultWiringServesGitHubApp() {
    CredentialBroker wired = h.defaultBroker(Optional.of(
        new GitHubAppSettings(BrokerHarness.APP_ID, TestKeys.pkcs8Pem(h.appKeys.getPrivate()), h.github.apiBase())));

    IssuedToken token = wired.mintToken(h.issue(wired).leaseId());

    assertThat(wired.redeem(token.token(), "github.com", "acme/widgets", CallerCheck.ANYONE).password())
        .isEqualTo(h.github.issued().get(0).token());
  }

  @Test
  void issuingForASessionCreatesEveryLeaseOrNone() {
    h.rows.repository("r2", "ws-1", "github.com", "acme", "gadgets").link("t1", "r2", 1);

    List<LeaseGrant> grants = h.broker.issueForSession("s1", null);

    assertThat(grants).extracting(g -> g.snapshot().repository()).containsExactly("acme/widgets", "acme/gadgets");
    assertThat(leases()).isEqualTo(2);

    h.rows.repository("r3", "ws-2", "github.com", "acme", "other").link("t1", "r3", 2);
    assertRejected(() -> h.broker.issueForSession("s1", null),
        FailureType.CREDENTIAL_SCOPE_DENIED, "repository does not belong to workspace");
    assertThat(leases()).as("the first scopes' leases were rolled back").isEqualTo(2);
  }

  @Test
  void theSnapshotIsCamelCaseJsonAndRoundTrips() throws Exception {
    GitCredentialSnapshot snapshot = h.issue().snapshot();
    var mapper = dev.kandev.recovery.activities.json.Json.mapper();

    String json = mapper.writeValueAsString(snapshot);

    assertThat(json).contains("\"installationId\":42", "\"leaseId\":\"lease-", "\"capturedAt\":", "\"version\":1");
    assertThat(mapper.readValue(json, GitCredentialSnapshot.class)).isEqualTo(snapshot);
    h.fixtures.exec("DELETE FROM workspace_credential_policies");
    assertThat(mapper.writeValueAsString(h.issue().snapshot()))
        .doesNotContain("leaseId").doesNotContain("installationId").contains("\"policy\":\"none\"");
  }

  // --- scopes ---------------------------------------------------------------------------------

  @Test
  void scopesForSessionListsTheTasksRepositoriesInLinkOrder() {
    h.rows.repository("r0", "ws-1", "ghe.example.com", "platform", "infra").link("t1", "r0", -1);

    assertThat(h.broker.scopesForSession("s1")).containsExactly(
        LeaseScope.github("ws-1", "t1", "s1", "r0", "ghe.example.com", "platform/infra"),
        h.scope());
    assertRejected(() -> h.broker.scopesForSession("nope"), FailureType.CREDENTIAL_SCOPE_DENIED, "unknown session");
  }

  @Test
  void scopesAreNormalized() {
    LeaseScope s = new LeaseScope(" ws-1 ", "t1", "s1", "r1", "GitHub.COM", "/acme/widgets.git/", "GitHub");
    assertThat(s).isEqualTo(h.scope());
    assertThat(s.owner()).isEqualTo("acme");
    assertThat(s.name()).isEqualTo("widgets");
    assertThat(new LeaseScope("w", "t", "s", "r", "github.com", "/acme/wid%67ets", "github").path()).isEqualTo("/acme/widgets");
  }

  @Test
  void invalidScopesAreRefused() {
    assertInvalidScope(() -> LeaseScope.github("w", "t", "s", "r", "github.com/evil", "a/b"), "host must not contain");
    assertInvalidScope(() -> LeaseScope.github("w", "t", "s", "r", "user@github.com", "a/b"), "host must not contain");
    assertInvalidScope(() -> new LeaseScope("w", "t", "s", "r", "github.com", "a/b", "github"), "start with '/'");
    assertInvalidScope(() -> LeaseScope.github("w", "t", "s", "r", "github.com", "a/b?x=1"), "'?'");
    assertInvalidScope(() -> LeaseScope.github("w", "t", "s", "r", "github.com", "a/b#frag"), "'#'");
    assertInvalidScope(() -> LeaseScope.github("w", "t", "s", "r", "github.com", "a/b/c"), "/<owner>/<repository>");
    assertInvalidScope(() -> new LeaseScope("w", "t", "s", "r", "gitlab.com", "/a/b", "gitlab"), "provider");
    assertInvalidScope(() -> LeaseScope.github("w", "t", "", "r", "github.com", "a/b"), "sessionId");
  }

  private static void assertInvalidScope(ThrowingCallable scope, String message) {
    assertThatThrownBy(scope).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
  }

  @Test
  void secretsAreRedactedFromToStrings() {
    String pem = TestKeys.pkcs8Pem(h.appKeys.getPrivate());
    assertThat(new GitHubAppSettings("1", pem, null).toString()).doesNotContain("PRIVATE").contains("redacted");
    assertThat(new GitCredential("x-access-token", "ghs_secret").toString()).doesNotContain("ghs_secret");
  }

  /** The one token the fake issued. */
  private record FakeIssued(String token, List<String> repositories, Map<String, String> permissions) {
    static FakeIssued of(BrokerHarness h) {
      var r = h.github.issued().get(0);
      return new FakeIssued(r.token(), r.repositories(), r.permissions());
    }
  }
}
