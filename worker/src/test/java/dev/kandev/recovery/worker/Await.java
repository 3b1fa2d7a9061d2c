package dev.kandev.recovery.worker;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline, instead of sleeping and hoping. */
final class Await {
  private Await() {}

  static void until(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
