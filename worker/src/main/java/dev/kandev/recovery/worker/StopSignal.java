package dev.kandev.recovery.worker;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C and SIGTERM as a latch the process waits on. The JVM halts once its shutdown hooks
 * return, so the hook waits until this signal is closed: open it before everything the process
 * must stop cleanly (agents recorded as stopped, then the worker, then dev's Temporal server), in
 * the same try-with-resources, and it closes last.
 */
public final class StopSignal implements AutoCloseable {
  /** How long Ctrl-C / SIGTERM waits for the agents, the worker and dev's server to stop. */
  private static final long CLEANUP_SECONDS = 45;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final CountDownLatch closed = new CountDownLatch(1);

  public static StopSignal install() {
    StopSignal signal = new StopSignal();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (signal.closed.getCount() == 0) {
        return; // the process ended by itself
      }
      System.out.println("Stopping...");
      signal.stopping.countDown();
      try {
        signal.closed.await(CLEANUP_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "stop-signal"));
    return signal;
  }

  void await() throws InterruptedException {
    stopping.await();
  }

  @Override
  public void close() {
    closed.countDown();
  }
}
