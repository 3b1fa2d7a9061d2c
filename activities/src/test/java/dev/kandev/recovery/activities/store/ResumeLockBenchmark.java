package dev.kandev.recovery.activities.store;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.bench.BenchSessions;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.activities.testing.bench.Load;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.activities.testing.bench.Table;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Resume lock acquire+release cycles: one thread, eight threads on their own sessions, and eight
 * threads contending for one session (where most acquisitions find the lock held).
 */
@Tag("benchmark")
class ResumeLockBenchmark {
  private static final Duration TTL = Duration.ofMinutes(1);
  private static final int CYCLES = 1_000;
  private static final int THREADS = 8;

  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void acquireReleaseCycles() throws Exception {
    BenchSessions.insert(db.fixtures(), THREADS, FAILED);
    ResumeLockStore locks = new ResumeLockStore();
    Table table = new Table("Resume lock (ResumeLockStore.acquire + release per op)", "ops/s");

    Load.run(1, CYCLES / 4, (thread, i) -> cycle(locks, BenchSessions.id(0), "warm-up"));
    table.row("1 thread, one session", Load.run(1, CYCLES,
        (thread, i) -> cycle(locks, BenchSessions.id(0), "owner")));
    table.row(THREADS + " threads, a session each", Load.run(THREADS, CYCLES / THREADS,
        (thread, i) -> cycle(locks, BenchSessions.id(thread), "owner-" + thread)));

    AtomicInteger holders = new AtomicInteger();
    AtomicInteger won = new AtomicInteger();
    Latencies acquisitions = new Latencies();
    Load.Result attempts = Load.run(THREADS, CYCLES / THREADS, (thread, i) -> {
      String owner = "owner-" + thread;
      long begin = System.nanoTime();
      Optional<ResumeLock> lock = db.tx(h -> locks.acquire(h, BenchSessions.id(0), owner, TTL));
      acquisitions.add(System.nanoTime() - begin);
      if (lock.isPresent()) {
        if (holders.incrementAndGet() != 1) {
          throw new IllegalStateException("two holders of one resume lock");
        }
        won.incrementAndGet();
        holders.decrementAndGet();
        db.tx(h -> locks.release(h, BenchSessions.id(0), owner));
      }
    });
    table.row(THREADS + " threads, one session: attempts", attempts);
    table.row(THREADS + " threads, one session: acquire call only", acquisitions.count(),
        Double.NaN, acquisitions);
    table.note(String.format(Locale.ROOT,
        "contended: %d of %d attempts got the lock, %.1f won cycles/s; an attempt is acquire (+ release if won).",
        won.get(), attempts.operations(), won.get() / (attempts.wallNanos() / 1e9)));
    table.print(Machine.describe(db.dataSource()));
  }

  private void cycle(ResumeLockStore locks, String sessionId, String owner) {
    if (db.tx(h -> locks.acquire(h, sessionId, owner, TTL)).isEmpty()) {
      throw new IllegalStateException("uncontended lock of " + sessionId + " was held");
    }
    if (!db.tx(h -> locks.release(h, sessionId, owner))) {
      throw new IllegalStateException("release of " + sessionId + " found no lock");
    }
  }
}
