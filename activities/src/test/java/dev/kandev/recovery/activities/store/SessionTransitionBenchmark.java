package dev.kandev.recovery.activities.store;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.bench.BenchSessions;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.activities.testing.bench.Load;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.activities.testing.bench.Table;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Guarded transitions against the real PostgreSQL: FAILED→STARTING→FAILED cycles over 1,000
 * sessions (each thread owns its share, so no two threads touch one row), and 16 threads racing
 * one session, exactly one winner per round.
 */
@Tag("benchmark")
class SessionTransitionBenchmark {
  private static final int SESSIONS = 1_000;
  private static final int WARM_UP_CYCLES = 300;
  private static final int RACERS = 16;
  private static final int ROUNDS = 200;

  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void guardedTransitions() throws Exception {
    BenchSessions.insert(db.fixtures(), SESSIONS, FAILED);
    db.fixtures().sessionWithToken("contended", FAILED, "tok-1");
    SessionStore sessions = new MirrorSessionStore(Json.mapper());
    Table table = new Table("Guarded transitions (SessionStore.transition, one transition per op)", "ops/s");

    Load.run(1, WARM_UP_CYCLES, (thread, i) -> cycle(sessions, BenchSessions.id(i)));
    for (int threads : new int[] {1, 4, 16}) {
      int cyclesPerThread = SESSIONS / threads;
      Latencies transitions = new Latencies();
      Load.Result cycles = Load.run(threads, cyclesPerThread,
          (thread, i) -> timedCycle(sessions, BenchSessions.id(thread + threads * i), transitions));
      table.row(threads + (threads == 1 ? " thread, " : " threads, ") + threads * cyclesPerThread + " sessions, own rows",
          transitions.count(), 2 * cycles.perSecond(), transitions);
    }
    Latencies rounds = new Latencies();
    double roundsPerSecond = race(sessions, rounds);
    table.row(RACERS + " threads on one session (per round)", rounds.count(), roundsPerSecond, rounds);
    table.note("ops/s = won transitions per second; a cycle is FAILED>STARTING plus STARTING>FAILED.");
    table.note("contended: rate is rounds/s; a round is " + RACERS
        + " racers on FAILED>STARTING (exactly one wins) plus the winner's STARTING>FAILED.");
    table.print(Machine.describe(db.dataSource()));
  }

  private void cycle(SessionStore sessions, String sessionId) {
    move(sessions, sessionId, FAILED, STARTING);
    move(sessions, sessionId, STARTING, FAILED);
  }

  private void timedCycle(SessionStore sessions, String sessionId, Latencies latencies) {
    for (SessionState[] step : new SessionState[][] {{FAILED, STARTING}, {STARTING, FAILED}}) {
      long begin = System.nanoTime();
      move(sessions, sessionId, step[0], step[1]);
      latencies.add(System.nanoTime() - begin);
    }
  }

  private void move(SessionStore sessions, String sessionId, SessionState from, SessionState to) {
    TransitionResult result = db.tx(h -> sessions.transition(h, sessionId, Set.of(from), to, "benchmark", "", Fence.none()));
    if (!result.won()) {
      throw new IllegalStateException(sessionId + " " + from + ">" + to + " lost: " + result);
    }
  }

  /** Rounds of {@link #RACERS} threads on one session; returns rounds per second. */
  private double race(SessionStore sessions, Latencies rounds) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(RACERS);
    try {
      CyclicBarrier start = new CyclicBarrier(RACERS);
      Callable<Boolean> racer = () -> {
        start.await(30, TimeUnit.SECONDS);
        return db.tx(h -> sessions.transition(h, "contended", Set.of(FAILED), STARTING, "benchmark", "", Fence.none())).won();
      };
      long begin = System.nanoTime();
      for (int round = 0; round < ROUNDS; round++) {
        long roundBegin = System.nanoTime();
        List<Future<Boolean>> results = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
          results.add(pool.submit(racer));
        }
        int winners = 0;
        for (Future<Boolean> result : results) {
          winners += result.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        if (winners != 1) {
          throw new IllegalStateException("round " + round + " had " + winners + " winners");
        }
        move(sessions, "contended", STARTING, FAILED);
        rounds.add(System.nanoTime() - roundBegin);
      }
      return ROUNDS / ((System.nanoTime() - begin) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }
}
