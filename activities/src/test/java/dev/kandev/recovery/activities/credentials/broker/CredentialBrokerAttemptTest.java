package dev.kandev.recovery.activities.credentials.broker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.credentials.AttemptLeases;
import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.IssuedToken;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.StoreException;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.BrokerHarness;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.Fence;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lease step of a resume attempt, run again (its result lost with a worker that died before its
 * workflow task completed): {@link CredentialBroker#issueForAttempt} returns what the earlier run
 * issued while it can still be used, and issues anew when it cannot.
 */
class CredentialBrokerAttemptTest {
  private static final Fence FENCE = Fence.of(5);

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final BrokerHarness h = new BrokerHarness(db);

  /** Issues for the attempt of {@code fence}, which holds the session's resume lock (as a resume's lease step does). */
  private AttemptLeases issue(Fence fence) {
    db.run(h -> {
      h.execute("DELETE FROM resume_locks WHERE session_id = 's1'");
      new ResumeLockStore().reclaim(h, "s1", "run-" + fence.token(), fence, Duration.ofMinutes(15));
    });
    return h.broker.issueForAttempt("s1", fence, CredentialBroker.DEFAULT_TTL);
  }

  @Test
  void anAttemptThatNoLongerHoldsTheResumeLockGetsNoLease() {
    issue(FENCE);
    db.run(h -> new ResumeLockStore().release(h, "s1", "run-" + FENCE.token()));

    assertThatThrownBy(() -> h.broker.issueForAttempt("s1", FENCE, CredentialBroker.DEFAULT_TTL))
        .isInstanceOfSatisfying(CredentialException.class,
            e -> assertThat(e.type()).isEqualTo(FailureType.RESUME_LOCK_LOST));
    assertThat(leases()).as("only the lease of the attempt while it held the lock").isOne();
  }

  /** Finding 14: a stale copy of an older workflow task of the attempt gets no lease once a newer task wrote. */
  @Test
  void aStaleCopyOfAnOlderWorkflowTaskOfTheAttemptGetsNoLease() {
    AttemptLeases retry = issue(FENCE.inWorkflowTask(6));

    assertThatThrownBy(() -> h.broker.issueForAttempt("s1", FENCE.inWorkflowTask(3), CredentialBroker.DEFAULT_TTL))
        .isInstanceOfSatisfying(CredentialException.class,
            e -> assertThat(e.type()).isEqualTo(FailureType.RESUME_LOCK_LOST));
    assertThat(h.broker.issueForAttempt("s1", FENCE.inWorkflowTask(6), CredentialBroker.DEFAULT_TTL).leaseIds())
        .isEqualTo(retry.leaseIds());
    assertThat(leases()).isOne();
  }

  /**
   * Finding 15: the leases a lost workflow task issued for its attempt are revoked by the attempt's
   * fence; the leases of another attempt (an agent an earlier resume started) stay live.
   */
  @Test
  void revokingAnAttemptsLeasesRevokesThoseItIssuedAndNoOther() {
    AttemptLeases earlier = issue(Fence.of(4));
    AttemptLeases lost = issue(FENCE);

    assertThat(h.broker.revokeAttempt("s1", FENCE)).isEqualTo(lost.leaseIds().size()).isPositive();
    assertThat(h.broker.revokeAttempt("s1", FENCE)).as("idempotent").isZero();
    assertThat(h.broker.revokeAttempt("s1", Fence.of(99))).as("an attempt that issued nothing").isZero();

    assertThat(liveLeases()).isEqualTo(earlier.leaseIds().size());
    assertThat(h.fixtures.count("SELECT count(*) FROM credential_leases WHERE revoked_at IS NULL AND id = '"
        + earlier.leaseIds().get(0) + "'")).isOne();
  }

  private long leases() {
    return h.fixtures.count("SELECT count(*) FROM credential_leases");
  }

  private long liveLeases() {
    return h.fixtures.count("SELECT count(*) FROM credential_leases WHERE revoked_at IS NULL");
  }

  @Test
  void theSameAttemptRunTwiceIssuesOneLeaseAndReturnsItsIdsAndSnapshotAgain() {
    AttemptLeases first = issue(FENCE);
    h.clock.advance(Duration.ofMinutes(1));

    AttemptLeases again = issue(FENCE);

    assertThat(first.reused()).isFalse();
    assertThat(first.leaseIds()).singleElement().asString().startsWith("lease-");
    assertThat(again.reused()).isTrue();
    assertThat(again.leaseIds()).isEqualTo(first.leaseIds());
    assertThat(again.snapshot()).isEqualTo(first.snapshot());
    assertThat(leases()).isOne();
    assertThat(h.github.calls()).as("issuance does not call GitHub").isZero();
    // The reused lease is the one the launch mints a token for, and git redeems it: GitHub mints once.
    IssuedToken token = h.broker.mintToken(again.leaseIds().get(0));
    h.broker.redeem(token.token(), "github.com", "acme/widgets.git", CallerCheck.ANYONE);
    assertThat(h.github.issued()).hasSize(1);
    assertThat(h.fixtures.dump("credential_lease_attempts")).doesNotContain(token.token());
  }

  @Test
  void issuingSweepsLeasesAndAttemptRecordsADayPastTheirEnd() {
    AttemptLeases old = issue(FENCE);
    h.clock.advance(CredentialBroker.DEFAULT_TTL.plus(Duration.ofDays(1)).minusMinutes(1));
    issue(Fence.of(6));
    assertThat(leases()).as("expired less than a day ago: kept").isEqualTo(2);

    h.clock.advance(Duration.ofMinutes(2));
    AttemptLeases latest = issue(Fence.of(7));

    assertThat(h.fixtures.strings("SELECT id FROM credential_leases ORDER BY created_at"))
        .doesNotContainAnyElementsOf(old.leaseIds()).hasSize(2).contains(latest.leaseIds().get(0));
    assertThat(h.fixtures.strings("SELECT fence::text FROM credential_lease_attempts ORDER BY fence"))
        .as("the attempt record goes with its leases").containsExactly("6", "7");
  }

  @Test
  void aNewAttemptOfTheSessionGetsANewLease() {
    AttemptLeases first = issue(FENCE);

    AttemptLeases next = issue(Fence.of(6));

    assertThat(next.reused()).isFalse();
    assertThat(next.leaseIds()).doesNotContainAnyElementsOf(first.leaseIds()).hasSize(1);
    assertThat(leases()).isEqualTo(2);
  }

  @Test
  void aRevokedLeaseIsIssuedAnewAndTheNewOneIsWhatTheAttemptReturnsFromThenOn() {
    AttemptLeases first = issue(FENCE);
    h.broker.revokeSession("s1");

    AttemptLeases anew = issue(FENCE);
    AttemptLeases third = issue(FENCE);

    assertThat(anew.reused()).isFalse();
    assertThat(anew.leaseIds()).doesNotContainAnyElementsOf(first.leaseIds()).hasSize(1);
    assertThat(anew.snapshot().leaseId()).isEqualTo(anew.leaseIds().get(0));
    assertThat(third.reused()).isTrue();
    assertThat(third.leaseIds()).isEqualTo(anew.leaseIds());
    assertThat(liveLeases()).isOne();
  }

  @Test
  void anExpiredLeaseIsIssuedAnew() {
    AttemptLeases first = issue(FENCE);
    h.clock.advance(CredentialBroker.DEFAULT_TTL.plusSeconds(1));

    AttemptLeases anew = issue(FENCE);

    assertThat(anew.reused()).isFalse();
    assertThat(anew.leaseIds()).doesNotContainAnyElementsOf(first.leaseIds()).hasSize(1);
  }

  /** The launch could not mint a token for a lease of the old policy: the earlier one is revoked. */
  @Test
  void aChangedPolicyIssuesAnewAndRevokesTheEarlierLease() {
    AttemptLeases first = issue(FENCE);
    h.rows.workspacePolicy("ws-1", "github_app", BrokerHarness.INSTALLATION, "{\"contents\":\"read\"}");

    AttemptLeases anew = issue(FENCE);

    assertThat(anew.reused()).isFalse();
    assertThat(anew.snapshot().permissions()).containsEntry("contents", "read");
    assertThat(h.fixtures.count("SELECT count(*) FROM credential_leases WHERE id = ? AND revoked_at IS NOT NULL",
        first.leaseIds().get(0))).isOne();
    assertThat(liveLeases()).isOne();
  }

  @Test
  void aPolicyOfNoLeaseReturnsTheEarlierSnapshotAgain() {
    h.rows.workspacePolicy("ws-1", "none", null, "{}");
    AttemptLeases first = issue(FENCE);
    h.clock.advance(Duration.ofMinutes(1));

    AttemptLeases again = issue(FENCE);

    assertThat(first.leaseIds()).isEmpty();
    assertThat(again.reused()).isTrue();
    assertThat(again.snapshot()).isEqualTo(first.snapshot());
    assertThat(again.snapshot().policy()).isEqualTo("none");
    assertThat(leases()).isZero();
  }

  @Test
  void aSessionThatBecameTerminalIsRefusedOnTheRerunToo() {
    issue(FENCE);
    h.moveSession(STARTING, FAILED);

    assertThatThrownBy(() -> issue(FENCE))
        .isInstanceOfSatisfying(CredentialException.class,
            e -> assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_SESSION_TERMINAL));
  }

  /**
   * A replaced worker's run and its zombie predecessor's at once: both find no earlier result and
   * issue; the second to record the attempt fails (a retryable store fault), its lease rolled back
   * with it, and its retry returns the first one's lease.
   */
  @Test
  void twoRunsOfTheSameAttemptAtOnceLeaveOneLeaseAndTheLosersRetryGetsIt() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Object> outcomes = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (var lock = c.createStatement()) {
        lock.execute("SELECT 1 FROM task_sessions WHERE id = 's1' FOR UPDATE");
      }
      long holder = backendPid(c);
      List<Future<AttemptLeases>> runs = List.of(pool.submit(() -> issue(FENCE)), pool.submit(() -> issue(FENCE)));
      Await.until(() -> h.fixtures.count("SELECT count(*) FROM pg_stat_activity WHERE ?::int = ANY(pg_blocking_pids(pid))",
          holder), n -> n == 2, Duration.ofSeconds(20), "both runs to wait at the session's row, past their first read");
      c.commit();
      for (Future<AttemptLeases> run : runs) {
        try {
          outcomes.add(run.get(20, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          outcomes.add(e.getCause());
        }
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(outcomes).filteredOn(StoreException.class::isInstance).hasSize(1);
    AttemptLeases winner = outcomes.stream().filter(AttemptLeases.class::isInstance).map(AttemptLeases.class::cast)
        .findFirst().orElseThrow();
    assertThat(leases()).isOne();
    assertThat(issue(FENCE).leaseIds()).isEqualTo(winner.leaseIds());
  }

  private static long backendPid(Connection c) throws SQLException {
    try (var query = c.createStatement(); var rows = query.executeQuery("SELECT pg_backend_pid()")) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
