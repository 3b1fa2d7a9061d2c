package dev.kandev.recovery.activities.store;

/**
 * The fencing token of the resume lock a write is made under. A fenced write applies only while the
 * lock row of its session still carries this token, so a holder that lost its lock to a newer one
 * cannot overwrite the newer holder's work.
 */
public record Fence(long token) {
  private static final Fence NONE = new Fence(-1);

  /** For writes that are not made under the resume lock (e.g. prompt turns, agent exit). */
  public static Fence none() {
    return NONE;
  }

  public static Fence of(long token) {
    if (token <= 0) {
      throw new IllegalArgumentException("fencing tokens are positive, got " + token);
    }
    return new Fence(token);
  }

  boolean isNone() {
    return token < 0;
  }
}
