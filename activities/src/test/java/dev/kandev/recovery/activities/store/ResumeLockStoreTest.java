package dev.kandev.recovery.activities.store;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import org.jdbi.v3.core.Handle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ResumeLockStoreTest {
  private static final Duration TTL = Duration.ofMinutes(5);

  @RegisterExtension final TestDatabase db = new TestDatabase();
  private ResumeLockStore locks;
  private SessionStore sessions;

  @BeforeEach
  void setUp() {
    db.fixtures().sessionWithToken("s1", FAILED, "tok-1");
    locks = new ResumeLockStore();
    sessions = new MirrorSessionStore(Json.mapper());
  }

  @Test
  void onlyOneOfManyThreadsAcquiresTheLock() throws Exception {
    int threads = 12;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CyclicBarrier start = new CyclicBarrier(threads);
      List<Future<Optional<ResumeLock>>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        String owner = "owner-" + i;
        futures.add(pool.submit(() -> {
          start.await(10, TimeUnit.SECONDS);
          return db.tx(h -> locks.acquire(h, "s1", owner, TTL));
        }));
      }
      int held = 0;
      for (Future<Optional<ResumeLock>> future : futures) {
        held += future.get(30, TimeUnit.SECONDS).isPresent() ? 1 : 0;
      }
      assertThat(held).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void reacquiringByTheSameOwnerKeepsTheTokenAndAnotherOwnerIsRefused() {
    ResumeLock first = db.tx(h -> locks.acquire(h, "s1", "run-a", TTL)).orElseThrow();

    assertThat(db.tx((Handle h) -> locks.acquire(h, "s1", "run-a", TTL))).get().extracting(ResumeLock::fence).isEqualTo(first.fence());
    assertThat(db.tx((Handle h) -> locks.acquire(h, "s1", "run-b", TTL))).isEmpty();
  }

  @Test
  void anExpiredLockIsTakenOverWithAStrictlyLargerFencingToken() {
    ResumeLock old = db.tx(h -> locks.acquire(h, "s1", "run-a", Duration.ofMillis(1))).orElseThrow();
    db.fixtures().exec("UPDATE resume_locks SET expires_at = now() - interval '1 second'");

    ResumeLock taken = db.tx(h -> locks.acquire(h, "s1", "run-b", TTL)).orElseThrow();

    assertThat(taken.fence().token()).isGreaterThan(old.fence().token());
    assertThat(db.tx((Handle h) -> TestStores.renew(h, old, TTL))).isEmpty();
    assertThat(db.tx((Handle h) -> locks.release(h, "s1", "run-a"))).isFalse();
    assertThat(db.tx((Handle h) -> locks.current(h, "s1"))).get().extracting(ResumeLock::owner).isEqualTo("run-b");
  }

  @Test
  void tokensGrowAcrossReleaseAndReacquire() {
    long first = db.tx(h -> locks.acquire(h, "s1", "run-a", TTL)).orElseThrow().fence().token();
    assertThat(db.tx((Handle h) -> locks.release(h, "s1", "run-a"))).isTrue();
    assertThat(db.tx((Handle h) -> locks.release(h, "s1", "run-a"))).isFalse();

    assertThat(db.tx((Handle h) -> locks.acquire(h, "s1", "run-a", TTL)).orElseThrow().fence().token()).isGreaterThan(first);
  }

  @Test
  void renewExtendsTheExpiryOfTheHolder() {
    ResumeLock lock = db.tx(h -> locks.acquire(h, "s1", "run-a", Duration.ofSeconds(1))).orElseThrow();

    ResumeLock renewed = db.tx(h -> TestStores.renew(h, lock, Duration.ofHours(1))).orElseThrow();

    assertThat(renewed.expiresAt()).isAfter(lock.expiresAt());
    assertThat(renewed.fence()).isEqualTo(lock.fence());
  }

  @Test
  void aGuardedWriteWithAStaleFencingTokenIsRejected() {
    ResumeLock old = db.tx(h -> locks.acquire(h, "s1", "run-a", TTL)).orElseThrow();
    db.fixtures().exec("UPDATE resume_locks SET expires_at = now() - interval '1 second'");
    ResumeLock current = db.tx(h -> locks.acquire(h, "s1", "run-b", TTL)).orElseThrow();
    SessionIdentityStore identities = new MirrorSessionIdentityStore();

    TransitionResult stale = db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", old.fence()));
    assertThatThrownBy(() -> db.run(h -> identities.clearForFreshStart(h, "s1", old.fence()))).isInstanceOf(StaleFenceException.class);
    assertThat(db.tx((Handle h) -> sessions.writeMetadataEntry(h, "s1", "note", null, Set.of(FAILED), old.fence())).outcome())
        .isEqualTo(TransitionResult.Outcome.FENCED);

    assertThat(stale.outcome()).isEqualTo(TransitionResult.Outcome.FENCED);
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).state()).isEqualTo(FAILED);
    assertThat(db.tx((Handle h) -> identities.read(h, "s1")).resumeToken()).isEqualTo("tok-1");
    assertThat(db.tx((Handle h) -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", current.fence())).won()).isTrue();
  }

  /**
   * Finding 14: the token tells runs apart, the workflow task the copies of one run's task. A write of
   * a stale copy (an older task, its worker back from a stall) is refused once a newer task of the
   * same run wrote; the newer task's, later ones' and unstamped writes (the launch's) go on.
   */
  @Test
  void aWriteOfAnOlderWorkflowTaskOfTheSameRunIsRefusedOnceANewerOneWrote() {
    Fence lock = db.tx(h -> locks.acquire(h, "s1", "run-a", TTL)).orElseThrow().fence();
    Fence retry = lock.inWorkflowTask(6);
    Fence staleCopy = lock.inWorkflowTask(3);

    assertThat(db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", retry)).won()).isTrue();
    assertThat(db.tx((Handle h) -> sessions.writeMetadataEntry(h, "s1", "note", TextNode.valueOf("stale"), Set.of(STARTING),
        staleCopy)).outcome()).isEqualTo(TransitionResult.Outcome.FENCED);
    assertThat(db.tx((Handle h) -> ResumeLockStore.holds(h, "s1", staleCopy))).isFalse();

    assertThat(db.tx((Handle h) -> ResumeLockStore.holds(h, "s1", retry))).as("the same task again").isTrue();
    assertThat(db.tx((Handle h) -> ResumeLockStore.holds(h, "s1", lock))).as("the launch: the token alone").isTrue();
    assertThat(db.tx((Handle h) -> ResumeLockStore.holds(h, "s1", lock.inWorkflowTask(12)))).isTrue();
    assertThat(db.tx((Handle h) -> ResumeLockStore.holds(h, "s1", retry))).as("older than task 12 now").isFalse();
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).metadataEntry("note")).isEmpty();
  }

  @Test
  void aNewHolderOfTheLockStartsWithNoWorkflowTask() {
    Fence first = db.tx(h -> locks.acquire(h, "s1", "run-a", TTL)).orElseThrow().fence();
    assertThat(db.tx((Handle h) -> ResumeLockStore.holds(h, "s1", first.inWorkflowTask(40)))).isTrue();
    assertThat(db.tx(h -> locks.acquire(h, "s1", "run-a", TTL)).orElseThrow().fence()).isEqualTo(first);
    assertThat(db.tx((Handle h) -> ResumeLockStore.holds(h, "s1", first.inWorkflowTask(39))))
        .as("a retried acquisition keeps the run's newest task").isFalse();

    db.run(h -> locks.release(h, "s1", "run-a"));
    Fence next = db.tx(h -> locks.acquire(h, "s1", "run-b", TTL)).orElseThrow().fence();
    assertThat(db.tx((Handle h) -> ResumeLockStore.holds(h, "s1", next.inWorkflowTask(3)))).isTrue();
    ResumeLock taken = db.tx(h -> locks.takeOver(h, locks.current(h, "s1").orElseThrow(), "run-c", TTL)).orElseThrow();
    assertThat(db.tx((Handle h) -> ResumeLockStore.holds(h, "s1", taken.fence().inWorkflowTask(2))))
        .as("taken over: the ended run's task is not the new holder's").isTrue();
  }

  @Test
  void aLockNeedsAPositiveTimeToLive() {
    assertThatThrownBy(() -> db.tx(h -> locks.acquire(h, "s1", "run-a", Duration.ZERO)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive time to live");
  }

  /** A step run again recognises its own STARTING (and what followed it) by the fence, also once unlocked. */
  @Test
  void aFencedMoveToStartingRecordsItsResumeUntilTheNextResumeStarts() {
    Fence first = db.tx((Handle h) -> locks.acquire(h, "s1", "run-a", TTL)).orElseThrow().fence();
    db.tx((Handle h) -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", first));
    db.tx((Handle h) -> locks.release(h, "s1", "run-a"));
    assertThat(startedUnder(first)).as("after the release").isTrue();
    db.tx((Handle h) -> sessions.transition(h, "s1", Set.of(STARTING), FAILED, "agent exited", "", Fence.none()));
    assertThat(startedUnder(first)).as("an unfenced write leaves it").isTrue();

    Fence second = db.tx((Handle h) -> locks.acquire(h, "s1", "run-b", TTL)).orElseThrow().fence();
    db.tx((Handle h) -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", second));

    assertThat(startedUnder(first)).isFalse();
    assertThat(startedUnder(second)).isTrue();
    assertThat(startedUnder(Fence.none())).isFalse();
  }

  private boolean startedUnder(Fence fence) {
    return db.tx((Handle h) -> sessions.lastStartedUnder(h, "s1", fence));
  }
}
