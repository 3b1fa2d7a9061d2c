package dev.kandev.recovery.activities.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The one way tests wait: poll a condition until it holds or a deadline passes, instead of sleeping
 * and hoping. A timeout fails with what was awaited and, for {@link #until(Supplier, Predicate,
 * Duration, String)}, the last value seen.
 */
public final class Await {
  private static final Duration POLL = Duration.ofMillis(20);

  private Await() {}

  /** Waits until {@code condition} holds; {@code what} names it in the failure. */
  public static void until(BooleanSupplier condition, Duration timeout, String what) {
    until(condition::getAsBoolean, Boolean::booleanValue, timeout, what);
  }

  /** Waits until {@code value} satisfies {@code done}; returns that value. */
  public static <T> T until(Supplier<T> value, Predicate<? super T> done, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = value.get();
    while (!done.test(last)) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what + "; last seen: " + last);
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what + "; last seen: " + last, e);
      }
      last = value.get();
    }
    return last;
  }
}
