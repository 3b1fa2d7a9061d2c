package dev.kandev.recovery.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.workflows.model.Fence;
import java.util.Set;
import dev.kandev.recovery.activities.store.StoreException;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.ActivityHooks;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A failure after the early STARTING transition, at every later step and for both terminal prior
 * states: the session ends in its prior recoverable state with its token, its previous credential
 * snapshot, no live lease, no lock, no agent and no stale STARTING.
 */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
public class ResumeFaultMatrixTest {
  /**
   * A snapshot as another Kandev version wrote it: keys this version does not know and a number a
   * typed round trip would rewrite (1.50). A compensation puts it back byte for byte.
   */
  private static final String OLD_SNAPSHOT = "{\"version\":1,\"policy\":\"none\",\"permissions\":{},"
      + "\"source\":\"executor\",\"capturedAt\":\"2026-11-30T10:00:00Z\",\"routedBy\":\"kandev-2.4\",\"weight\":1.50}";

  @RegisterExtension @Order(1) final TestDatabase db;
  private final ActivityHooks hooks = new ActivityHooks();
  @RegisterExtension @Order(2) final ResumeHarness harness;

  /** On both store layouts: our mirror and Kandev's own tables (where metadata is JSON text). */
  public ResumeFaultMatrixTest(StoreLayout.Kind layout) {
    this.db = new TestDatabase(layout);
    this.harness = new ResumeHarness(db, hooks);
  }

  @Test
  void aDatabaseOutageDuringCompensationDelaysTheRestoreButCannotPreventIt() throws Exception {
    String token = harness.establishedSession("s1", SessionState.FAILED);
    // As many failed attempts as a store step is allowed in all: a compensation must outlast them.
    AtomicInteger outage = new AtomicInteger(5);
    AtomicInteger attempts = new AtomicInteger();
    hooks.before("restorePriorState", () -> {
      attempts.incrementAndGet();
      if (outage.getAndDecrement() > 0) {
        throw new StoreException("restore the prior state of session s1: connection refused", null);
      }
    });
    hooks.after("launchAgent", ActivityHooks.fail("launchAgent"));

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(attempts).hasValue(6);
    assertThat(failure.sessionState()).isEqualTo(SessionState.FAILED);
    assertThat(harness.state("s1")).isEqualTo(SessionState.FAILED);
    assertThat(harness.transitions("s1")).last().isEqualTo("STARTING>FAILED");
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(harness.lockHeld("s1")).isFalse();
  }

  /**
   * A database outage that outlasts a store step's retries (TemporalClusterIT's restart of PostgreSQL
   * while launched agents wait to be settled): the resume fails with the store's exception class as
   * its type, a fault outside the failure catalogue (docs/contract.md "Failure types"), and the session
   * is restored with its token.
   */
  @Test
  void aStoreOutageOutlastingTheSettlesRetriesFailsWithTheStoresTypeAndRestoresTheSession() throws Exception {
    String token = harness.establishedSession("s1", SessionState.FAILED);
    AtomicInteger settles = new AtomicInteger();
    hooks.before("settleSession", () -> {
      settles.incrementAndGet();
      throw new StoreException("settle session s1 failed: Connection to 127.0.0.1:5432 refused", null);
    });

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(settles).as("the store step's attempts").hasValue(5);
    assertThat(failure.step()).isEqualTo(ResumeStep.SETTLE_SESSION);
    assertThat(failure.failureType()).isEqualTo(StoreException.class.getName());
    assertThat(failure.sessionState()).isEqualTo(SessionState.FAILED);
    assertThat(harness.state("s1")).isEqualTo(SessionState.FAILED);
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(harness.lockHeld("s1")).isFalse();
  }

  @Test
  void aSessionDeletedDuringTheResumeFailsItAtOnceAndItsCompensationRunsOnce() throws Exception {
    harness.establishedSession("s1", SessionState.FAILED);
    AtomicInteger marks = new AtomicInteger();
    AtomicInteger restores = new AtomicInteger();
    hooks.before("markStarting", () -> {
      marks.incrementAndGet();
      harness.fixtures().exec("DELETE FROM task_sessions WHERE id = ?", "s1");
    });
    hooks.before("restorePriorState", restores::incrementAndGet);

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(ResumeStep.MARK_STARTING);
    assertThat(failure.failureType()).isEqualTo(FailureType.SESSION_NOT_FOUND.type());
    assertThat(failure.sessionState()).isNull();
    assertThat(failure.recoveryActions()).isEmpty();
    assertThat(failure.message()).contains("unknown session 's1'");
    assertThat(marks).hasValue(1);
    assertThat(restores).hasValue(1);
    assertThat(harness.lockHeld("s1")).isFalse();
  }

  @Test
  void aCompensationFencedOutByANewerResumeStopsQuietlyAndLeavesTheSessionToIt() throws Exception {
    harness.establishedSession("s1", SessionState.FAILED);
    AtomicInteger restores = new AtomicInteger();
    hooks.after("launchAgent", ActivityHooks.fail("launchAgent"));
    hooks.before("restorePriorState", () -> {
      // This resume's lock expired meanwhile and a newer resume took it over.
      if (restores.incrementAndGet() == 1) {
        harness.fixtures().exec("DELETE FROM resume_locks WHERE session_id = ?", "s1");
        assertThat(db.tx((Handle h) -> harness.locks().acquire(h, "s1", "newer-resume", Duration.ofMinutes(5))))
            .isPresent();
      }
    });

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(ResumeStep.LAUNCH_AGENT);
    assertThat(failure.failureType()).isEqualTo("INJECTED_FAULT");
    assertThat(restores).hasValue(1);
    // The newer resume owns the session: left STARTING for it, under its lock.
    assertThat(failure.sessionState()).isEqualTo(SessionState.STARTING);
    assertThat(harness.state("s1")).isEqualTo(SessionState.STARTING);
    assertThat(harness.transitions("s1")).last().isEqualTo("FAILED>STARTING");
    assertThat(db.tx((Handle h) -> harness.locks().current(h, "s1"))).hasValueSatisfying(
        lock -> assertThat(lock.owner()).isEqualTo("newer-resume"));
  }

  /**
   * Kandev's own compare-and-set wins while the launch runs (its user cancelled the session:
   * STARTING → CANCELLED), then the launch fails. The concurrent terminal winner keeps its state, and
   * the credential snapshot the resume persisted is still put back byte for byte: the resume holds
   * the lock, so nobody else wrote it. Found by the fault campaign (seed 4100001): the restore was
   * guarded by STARTING and left the failed resume's snapshot, naming its revoked lease.
   */
  @Test
  void aResumeFailingAfterKandevCancelledTheSessionStillPutsBackTheSnapshot() throws Exception {
    String token = harness.establishedSession("s1", SessionState.FAILED);
    harness.gitHubBacked("s1", "github_app");
    harness.fixtures().exec("UPDATE task_sessions SET metadata = jsonb_set(metadata::jsonb, '{git_credential_snapshot}', ?::jsonb)",
        OLD_SNAPSHOT);
    String snapshotBefore = harness.snapshotJson("s1");
    hooks.after("launchAgent", () -> {
      assertThat(db.tx((Handle h) -> harness.sessions().transition(h, "s1", Set.of(SessionState.STARTING),
          SessionState.CANCELLED, "kandev: the user cancelled", "", Fence.none())).won()).isTrue();
      ActivityHooks.fail("launchAgent").run();
    });

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(ResumeStep.LAUNCH_AGENT);
    assertThat(failure.sessionState()).isEqualTo(SessionState.CANCELLED);
    assertThat(harness.state("s1")).isEqualTo(SessionState.CANCELLED);
    assertThat(harness.snapshotJson("s1")).isEqualTo(snapshotBefore);
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(harness.liveLeases("s1")).isZero();
    assertThat(harness.lockHeld("s1")).isFalse();
  }

  static Stream<Arguments> faults() {
    return Stream.of(SessionState.FAILED, SessionState.CANCELLED).flatMap(prior -> Stream.of(
        Arguments.of(prior, "markStarting", true, ResumeStep.MARK_STARTING),
        Arguments.of(prior, "issueCredentialLeaseForAttempt", true, ResumeStep.ISSUE_CREDENTIAL_LEASE),
        Arguments.of(prior, "persistCredentialSnapshot", true, ResumeStep.PERSIST_CREDENTIAL_SNAPSHOT),
        Arguments.of(prior, "launchAgent", true, ResumeStep.LAUNCH_AGENT),
        Arguments.of(prior, "settleSession", false, ResumeStep.SETTLE_SESSION)));
  }

  @ParameterizedTest(name = "{0}: failure in {1} (after it ran: {2})")
  @MethodSource("faults")
  void failureAfterTheEarlyStartingTransitionRestoresThePriorRecoverableState(
      SessionState prior, String method, boolean afterItRan, ResumeStep step) throws Exception {
    String token = harness.establishedSession("s1", prior);
    harness.gitHubBacked("s1", "github_app");
    harness.fixtures().exec("UPDATE task_sessions SET metadata = jsonb_set(metadata::jsonb, '{git_credential_snapshot}', ?::jsonb)",
        OLD_SNAPSHOT);
    String snapshotBefore = harness.snapshotJson("s1");
    assertThat(snapshotBefore).contains("\"routedBy\": \"kandev-2.4\"", "1.50");
    if (afterItRan) {
      hooks.after(method, ActivityHooks.fail(method));
    } else {
      hooks.before(method, ActivityHooks.fail(method));
    }

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(step);
    assertThat(failure.failureType()).isEqualTo("INJECTED_FAULT");
    assertThat(failure.sessionState()).isEqualTo(prior);
    assertThat(failure.recoveryActions()).containsExactly(ResumeMode.RESUME, ResumeMode.START_FRESH);
    assertThat(harness.state("s1")).isEqualTo(prior);
    assertThat(harness.transitions("s1")).last().isEqualTo("STARTING>" + prior);
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(harness.snapshotJson("s1")).isEqualTo(snapshotBefore);
    assertThat(harness.liveLeases("s1")).isZero();
    assertThat(harness.lockHeld("s1")).isFalse();
    assertThat(harness.components().agentHost().isRunning("s1")).isFalse();
  }

  /**
   * Whatever the session stored as its snapshot before — nothing, a value that is not a snapshot, a
   * snapshot of another version — a resume that persisted its own and then failed puts back exactly
   * that: the same JSON, or no entry.
   */
  @ParameterizedTest(name = "stored before: {0}")
  @ValueSource(strings = {"", "\"written by hand\"", OLD_SNAPSHOT})
  void aFailedResumePutsBackTheStoredSnapshotExactly(String stored) throws Exception {
    harness.establishedSession("s1", SessionState.FAILED);
    harness.gitHubBacked("s1", "github_app");
    harness.fixtures().exec(stored.isEmpty()
        ? "UPDATE task_sessions SET metadata = metadata::jsonb - 'git_credential_snapshot'"
        : "UPDATE task_sessions SET metadata = jsonb_set(metadata::jsonb, '{git_credential_snapshot}', '" + stored + "'::jsonb)");
    String before = harness.snapshotJson("s1");
    AtomicReference<String> persisted = new AtomicReference<>();
    hooks.after("persistCredentialSnapshot", () -> persisted.set(harness.snapshotJson("s1")));
    hooks.after("launchAgent", ActivityHooks.fail("launchAgent"));

    harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(persisted.get()).as("the resume persisted its own snapshot").contains("github_app");
    assertThat(harness.snapshotJson("s1")).isEqualTo(before);
  }
}
