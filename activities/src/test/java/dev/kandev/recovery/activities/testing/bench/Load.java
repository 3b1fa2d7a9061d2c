package dev.kandev.recovery.activities.testing.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs an operation {@code opsPerThread} times on each of {@code threads} threads, all released
 * together, timing every call and the whole run.
 */
public final class Load {
  @FunctionalInterface
  public interface Operation {
    void run(int thread, int iteration) throws Exception;
  }

  /** What a run measured: every call's latency and the wall time from release to the last return. */
  public record Result(int operations, long wallNanos, Latencies latencies) {
    public double perSecond() {
      return operations / (wallNanos / 1e9);
    }
  }

  private Load() {}

  public static Result run(int threads, int opsPerThread, Operation operation) throws Exception {
    Latencies latencies = new Latencies();
    CyclicBarrier start = new CyclicBarrier(threads + 1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        workers.add(pool.submit(() -> {
          start.await(30, TimeUnit.SECONDS);
          for (int i = 0; i < opsPerThread; i++) {
            long begin = System.nanoTime();
            operation.run(thread, i);
            latencies.add(System.nanoTime() - begin);
          }
          return null;
        }));
      }
      start.await(30, TimeUnit.SECONDS);
      long begin = System.nanoTime();
      for (Future<?> worker : workers) {
        worker.get(5, TimeUnit.MINUTES);
      }
      return new Result(threads * opsPerThread, System.nanoTime() - begin, latencies);
    } finally {
      pool.shutdownNow();
    }
  }
}
