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
  private final ScheduledExecutorService schedule;

  private Periodic(ScheduledExecutorService schedule) {
    this.schedule = schedule;
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
    return new Periodic(schedule);
  }

  @Override
  public void close() {
    schedule.shutdownNow();
  }
}
