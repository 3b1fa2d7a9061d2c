package dev.kandev.recovery.activities.store;

import static dev.kandev.recovery.workflows.model.SessionState.COMPLETED;
import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import org.jdbi.v3.core.Handle;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ConcurrentTransitionTest {
  private static final int RACERS = 16;

  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void sixteenThreadsRacingFailedToStartingHaveExactlyOneWinnerAndOneEvent() throws Exception {
    db.fixtures().sessionWithToken("s1", FAILED, "tok-1");
    SessionStore sessions = new MirrorSessionStore(Json.mapper());

    List<TransitionResult> results = race(() ->
        db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", Fence.none())));

    assertThat(results).filteredOn(TransitionResult::won).hasSize(1);
    assertThat(results).filteredOn(r -> !r.won())
        .allSatisfy(r -> assertThat(r.now()).isEqualTo(STARTING))
        .hasSize(RACERS - 1);
    assertThat(db.fixtures().count("SELECT count(*) FROM session_events WHERE to_state = 'STARTING'")).isEqualTo(1);
  }

  @Test
  void aRestoreRacingATerminalWinnerNeverOverwritesIt() throws Exception {
    db.fixtures().sessionWithToken("s1", STARTING, "tok-1");
    SessionStore sessions = new MirrorSessionStore(Json.mapper());

    List<TransitionResult> results = race(() -> Thread.currentThread().getId() % 2 == 0
        ? db.tx(h -> sessions.transition(h, "s1", Set.of(STARTING), COMPLETED, "agent finished", "", Fence.none()))
        : db.tx(h -> sessions.transition(h, "s1", Set.of(STARTING), FAILED, "rollback", "launch failed", Fence.none())));

    assertThat(results).filteredOn(TransitionResult::won).hasSize(1);
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).state()).isIn(COMPLETED, FAILED);
    assertThat(db.fixtures().count("SELECT count(*) FROM session_events")).isEqualTo(1);
  }

  private static <T> List<T> race(java.util.concurrent.Callable<T> work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(RACERS);
    try {
      CyclicBarrier start = new CyclicBarrier(RACERS);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < RACERS; i++) {
        futures.add(pool.submit(() -> {
          start.await(10, TimeUnit.SECONDS);
          return work.call();
        }));
      }
      List<T> results = new ArrayList<>();
      for (Future<T> future : futures) {
        results.add(future.get(30, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
