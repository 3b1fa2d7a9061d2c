package dev.kandev.recovery.worker.harness;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** How a harness stops a server it started: asked first, killed if it does not end in time. */
public final class ProcessStop {
  private ProcessStop() {}

  /**
   * Sends SIGTERM and waits up to {@code grace}; then SIGKILL and up to 10 s more. An interrupt ends
   * the wait (and keeps the thread's interrupt flag).
   */
  public static void gracefully(Process process, Duration grace) {
    process.destroy();
    try {
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
