package dev.kandev.recovery.worker.recovery;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of the worker's background checks: runs every interval on a daemon thread of its own until
 * closed. A run that fails is logged, and the next one runs as planned.
 */
public final class Periodic implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Periodic.class);
  /** How long {@link #close} waits for a run under way (a beat's transaction, a reaper's stop). */
  static final Duration CLOSE_WITHIN = Duration.ofSeconds(5);
  private final ScheduledExecutorService schedule;
  private final String name;

  private Periodic(ScheduledExecutorService schedule, String name) {
    this.schedule = schedule;
    this.name = name;
  }

  public static Periodic every(Duration interval, String name, Runnable check) {
    ScheduledExecutorService schedule = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, name);
      thread.setDaemon(true);
      return thread;
    });
    Runnable logged = () -> {
      try {
        check.run();
      } catch (RuntimeException e) {
        log.error("{} failed; it runs again in {}", name, interval, e);
      }
    };
    schedule.scheduleWithFixedDelay(logged, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return new Periodic(schedule, name);
  }

  /**
   * Runs the check no more and waits (at most {@link #CLOSE_WITHIN}) for a run under way to end, so
   * that what the caller does next (a worker recording that it left) comes after it.
   */
  @Override
  public void close() {
    schedule.shutdownNow();
    try {
      if (!schedule.awaitTermination(CLOSE_WITHIN.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("{} still runs {} after it was stopped; not waiting for it any longer", name, CLOSE_WITHIN);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
