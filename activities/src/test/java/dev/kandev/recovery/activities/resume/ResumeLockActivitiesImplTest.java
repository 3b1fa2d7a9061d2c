package dev.kandev.recovery.activities.resume;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.store.ResumeLock;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.Fence;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The resume lock's acquisition against stale workflow tasks (issue 43): a run that released its
 * lock never takes one again, and a lock held by a run that has ended is taken over at once.
 */
class ResumeLockActivitiesImplTest {
  private static final Duration TTL = Duration.ofMinutes(15);
  private static final String RUN_A = "resume-session-s1/run-a";
  private static final String RUN_B = "resume-session-s1/run-b";

  @RegisterExtension final TestDatabase db = new TestDatabase();
  private final ResumeLockStore locks = new ResumeLockStore();
  private final Set<String> ended = new HashSet<>();
  private ResumeLockActivitiesImpl activities;

  @BeforeEach
  void setUp() {
    db.fixtures().sessionWithToken("s1", FAILED, "tok-1");
    activities = new ResumeLockActivitiesImpl(db.transactions(), locks, TTL, ended::contains);
  }

  private Optional<ResumeLock> lock() {
    return db.tx(h -> locks.current(h, "s1"));
  }

  @Test
  void aStaleTaskOfARunThatReleasedItsLockTakesNoLockAgain() {
    activities.acquireResumeLock("s1", RUN_A);
    activities.releaseResumeLock("s1", RUN_A);

    assertThatThrownBy(() -> activities.acquireResumeLock("s1", RUN_A))
        .isInstanceOfSatisfying(ApplicationFailure.class, failure -> {
          assertThat(failure.getType()).isEqualTo(FailureType.RESUME_LOCK_LOST.type());
          assertThat(failure.isNonRetryable()).isTrue();
          assertThat(failure.getOriginalMessage()).contains("stale workflow task");
        });
    assertThat(lock()).as("no lock left for the ended run").isEmpty();
    assertThat(activities.acquireResumeLock("s1", RUN_B)).as("the next resume locks at once").isNotNull();
  }

  @Test
  void aRetriedAcquisitionOfARunningResumeKeepsItsFence() {
    Fence first = activities.acquireResumeLock("s1", RUN_A);

    assertThat(activities.acquireResumeLock("s1", RUN_A)).isEqualTo(first);
  }

  @Test
  void aLockHeldByARunThatEndedIsTakenOverAtOnceUnderANewerFence() {
    Fence stale = activities.acquireResumeLock("s1", RUN_A);
    ended.add(RUN_A);

    Fence taken = activities.acquireResumeLock("s1", RUN_B);

    assertThat(taken.token()).isGreaterThan(stale.token());
    assertThat(lock()).get().extracting(ResumeLock::owner).isEqualTo(RUN_B);
    assertThat(db.<Boolean>tx(h -> ResumeLockStore.holds(h, "s1", stale))).as("the ended run's writes are fenced out").isFalse();
    assertThatThrownBy(() -> activities.acquireResumeLock("s1", RUN_A))
        .as("and it never takes the lock back").isInstanceOfSatisfying(ApplicationFailure.class,
            failure -> assertThat(failure.getType()).isEqualTo(FailureType.RESUME_LOCK_LOST.type()));
  }

  @Test
  void aLockHeldByARunningResumeIsRefusedWithItsHolder() {
    activities.acquireResumeLock("s1", RUN_A);

    assertThatThrownBy(() -> activities.acquireResumeLock("s1", RUN_B))
        .isInstanceOfSatisfying(ApplicationFailure.class, failure -> {
          assertThat(failure.getType()).isEqualTo(FailureType.RESUME_LOCK_HELD.type());
          assertThat(failure.getOriginalMessage()).contains(RUN_A);
        });
    assertThat(lock()).get().extracting(ResumeLock::owner).isEqualTo(RUN_A);
  }

  @Test
  void releasesAreRememberedForAWeekThenPrunedByLaterReleases() {
    activities.acquireResumeLock("s1", RUN_A);
    activities.releaseResumeLock("s1", RUN_A);
    db.run(h -> h.execute("UPDATE released_resume_locks SET released_at = now() - interval '8 days'"));

    activities.acquireResumeLock("s1", RUN_B);
    activities.releaseResumeLock("s1", RUN_B);

    assertThat(db.<Boolean>tx(h -> locks.releasedBy(h, RUN_A))).isFalse();
    assertThat(db.<Boolean>tx(h -> locks.releasedBy(h, RUN_B))).isTrue();
  }
}
