package dev.kandev.recovery.activities.resume;

import static dev.kandev.recovery.workflows.model.SessionState.CANCELLED;
import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.TestSessionActivities;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Findings 14 and 15 of the fault campaign. Finding 14, step by step on both layouts: a worker stalled with a resume's
 * first workflow task; the task's retry (a later workflow task) ran the saga on another worker, whose
 * launch failed, and the compensation put the old snapshot back. Then the stalled worker went on with
 * its stale copy of the first task — the same run, so the same lock — and wrote its own snapshot over
 * the restored one. The copy's writes carry its older workflow task and are refused.
 */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
class StaleTaskCopyTest {
  private static final String BEFORE =
      "{\"git_credential_snapshot\": {\"version\": 1, \"policy\": \"github_app\", \"leaseId\": \"lease-before\"},"
          + " \"theirs\": \"kept\"}";
  /** The stale copy's task and its retry's: a retry starts at a later event than the copy it replaces. */
  private static final long FIRST_TASK = 3;
  private static final long RETRY = 6;
  private static final long COMPENSATING_TASK = 14;

  @RegisterExtension final TestDatabase db;

  private final ResumeLockStore locks = new ResumeLockStore();
  private SessionActivitiesImpl activities;
  private String sessions;

  StaleTaskCopyTest(StoreLayout.Kind layout) {
    this.db = new TestDatabase(layout);
  }

  @BeforeEach
  void setUp() {
    KandevLayoutStores stores = KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE);
    activities = TestSessionActivities.of(db.transactions(), stores, "worker-1");
    db.fixtures().task("t1", "ws-1", "REVIEW").session("s1", "t1", "test-agent", FAILED, BEFORE).storedToken("s1", "tok-1");
    sessions = db.layout().kandevTable("task_sessions");
  }

  private Fence acquireLock() {
    return db.tx((Handle h) -> locks.acquire(h, "s1", "resume-session-s1/run-1", Duration.ofMinutes(5))).orElseThrow().fence();
  }

  private String state() {
    return db.fixtures().string("SELECT state FROM " + sessions + " WHERE id = 's1'");
  }

  private static void assertFails(ThrowingCallable step, FailureType type) {
    assertThatThrownBy(step).isInstanceOfSatisfying(ApplicationFailure.class,
        failure -> assertThat(failure.getType()).isEqualTo(type.type()));
  }

  private String metadata() {
    return db.fixtures().string("SELECT (metadata::jsonb - 'acp')::text FROM " + sessions + " WHERE id = 's1'");
  }

  @Test
  void aStaleCopyOfTheFirstWorkflowTaskWritesNoSnapshotOverTheCompensationsRestore() {
    Fence lock = acquireLock();
    String before = metadata();
    // The retry of the first task runs the saga up to the launch, which fails; the compensation restores.
    activities.markStarting("s1", FAILED, "user", lock.inWorkflowTask(RETRY));
    activities.persistCredentialSnapshot("s1", snapshot("lease-retry"), lock.inWorkflowTask(RETRY));
    activities.restoreCredentialSnapshot("s1", null, lock.inWorkflowTask(COMPENSATING_TASK));
    assertThat(metadata()).isEqualTo(before);

    // The stalled worker goes on with its copy of the first task: its steps are the run's, under its lock.
    Fence staleCopy = lock.inWorkflowTask(FIRST_TASK);
    activities.markStarting("s1", FAILED, "user", staleCopy); // already applied by the retry: nothing to do
    assertFails(() -> activities.persistCredentialSnapshot("s1", snapshot("lease-stale"), staleCopy),
        FailureType.RESUME_LOCK_LOST);
    assertThat(activities.restorePriorState("s1", FAILED, "launch failed", staleCopy))
        .as("nor does it restore in the compensation's place").isEqualTo(STARTING);

    assertThat(activities.restorePriorState("s1", FAILED, "launch failed", lock.inWorkflowTask(COMPENSATING_TASK + 3)))
        .isEqualTo(FAILED);
    assertThat(metadata()).as("the snapshot of before the resume, byte for byte, and Kandev's key").isEqualTo(before);
  }

  /**
   * Finding 7: the retry of the first task read the session and decided to fail there (nothing to
   * compensate); the stale copy of that task, back before the lock's release, must not move the
   * session to STARTING under the run's lock.
   */
  @Test
  void aStaleCopyOfTheFirstWorkflowTaskMovesNothingOnceItsRetryReadTheSession() {
    Fence lock = acquireLock();
    activities.readResumeContext("s1", ResumeMode.RESUME, lock.inWorkflowTask(RETRY));

    Fence staleCopy = lock.inWorkflowTask(FIRST_TASK);
    assertFails(() -> activities.readResumeContext("s1", ResumeMode.RESUME, staleCopy), FailureType.RESUME_LOCK_LOST);
    assertFails(() -> activities.markStarting("s1", FAILED, "user", staleCopy), FailureType.RESUME_LOCK_LOST);
    assertThat(state()).isEqualTo("FAILED");
  }

  /**
   * Finding 15: a lost attempt of the workflow task (it stalled after its writes) moved the session to
   * STARTING and persisted its snapshot; the kept attempt read the session as its own STARTING, then
   * Kandev's user cancelled it, so the kept attempt's transition failed before its snapshot step. The
   * compensations of its history restore nothing; the undo by the fence puts the old snapshot back.
   */
  @Test
  void aLostAttemptsSnapshotIsPutBackByTheFenceWhenTheKeptAttemptFailsBeforeItsSnapshotStep() {
    Fence lock = acquireLock();
    String before = metadata();
    lostAttemptWritesStartingAndSnapshot(lock);

    Fence kept = lock.inWorkflowTask(RETRY);
    assertThat(activities.readResumeContext("s1", ResumeMode.RESUME, kept).priorState()).isEqualTo(FAILED);
    db.run(h -> h.execute("UPDATE " + sessions + " SET state = 'CANCELLED' WHERE id = 's1' AND state = 'STARTING'"));
    assertFails(() -> activities.markStarting("s1", FAILED, "user", kept), FailureType.SESSION_STATE_SUPERSEDED);

    Fence compensating = lock.inWorkflowTask(COMPENSATING_TASK);
    assertThat(activities.restorePriorState("s1", FAILED, "superseded", compensating)).isEqualTo(CANCELLED);
    activities.undoLostTaskWrites("s1", "superseded", compensating);

    assertThat(metadata()).as("the snapshot of before the resume, byte for byte, and Kandev's key").isEqualTo(before);
    assertThat(state()).isEqualTo("CANCELLED");
  }

  /**
   * The kept attempt failed as early as its read (its worker does not know the session's agent, one
   * of an older release in a rolling upgrade), after a lost attempt moved the session to STARTING and
   * persisted its snapshot: the history has no transition to compensate; the undo by the fence puts
   * the session back in the state it left and the snapshot of before.
   */
  @Test
  void aLostAttemptsStartingGoesBackWhenTheKeptAttemptFailsAtItsRead() {
    Fence lock = acquireLock();
    String before = metadata();
    lostAttemptWritesStartingAndSnapshot(lock);

    SessionActivitiesImpl olderWorker = TestSessionActivities.of(db.transactions(),
        KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE), "worker-2", agent -> false);
    Fence kept = lock.inWorkflowTask(RETRY);
    assertFails(() -> olderWorker.readResumeContext("s1", ResumeMode.RESUME, kept), FailureType.AGENT_UNKNOWN);

    olderWorker.undoLostTaskWrites("s1", "resume failed at READ_CONTEXT (AGENT_UNKNOWN)",
        lock.inWorkflowTask(COMPENSATING_TASK));

    assertThat(state()).isEqualTo("FAILED");
    assertThat(metadata()).isEqualTo(before);
    assertThat(db.fixtures().string("SELECT error_message FROM " + sessions + " WHERE id = 's1'"))
        .contains("AGENT_UNKNOWN");
  }

  /** No persist applied under the fence (no lost attempt wrote): the undo leaves the stored snapshot alone. */
  @Test
  void theUndoByTheFenceChangesNothingWhenNoPersistAppliedUnderIt() {
    Fence lock = acquireLock();
    String before = metadata();
    activities.readResumeContext("s1", ResumeMode.RESUME, lock.inWorkflowTask(FIRST_TASK));

    activities.undoLostTaskWrites("s1", "refused", lock.inWorkflowTask(RETRY));

    assertThat(metadata()).isEqualTo(before);
    assertThat(state()).isEqualTo("FAILED");
  }

  /** A lost attempt of the first workflow task, under the run's lock: STARTING and its snapshot. */
  private void lostAttemptWritesStartingAndSnapshot(Fence lock) {
    Fence lost = lock.inWorkflowTask(FIRST_TASK);
    activities.markStarting("s1", FAILED, "user", lost);
    activities.persistCredentialSnapshot("s1", snapshot("lease-lost"), lost);
  }

  private static GitCredentialSnapshot snapshot(String leaseId) {
    return new GitCredentialSnapshot(1, "github_app", "github", "github.com", "acme/widgets", 77L,
        Map.of("contents", "write"), leaseId, "2026-12-06T19:00:00Z", "workspace", "2026-12-06T07:00:00Z");
  }
}
