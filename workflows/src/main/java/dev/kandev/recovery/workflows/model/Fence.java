package dev.kandev.recovery.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The fencing token of the resume lock a write is made under, from the lock's acquisition through
 * the workflow to every store write. A fenced write applies only while the lock row of its session
 * still carries this token, so a holder that lost its lock to a newer one cannot overwrite the newer
 * holder's work.
 *
 * <p>In a payload a fence is its token, a plain JSON number ({@code 42}), as it was when activities
 * took a {@code long}: recorded histories replay unchanged.
 */
public record Fence(long token) {
  private static final Fence NONE = new Fence(-1);

  /** For writes that are not made under the resume lock (e.g. prompt turns, agent exit). */
  public static Fence none() {
    return NONE;
  }

  /** The fence of a held lock; its token is positive. */
  public static Fence of(long token) {
    if (token <= 0) {
      throw new IllegalArgumentException("fencing tokens are positive, got " + token);
    }
    return new Fence(token);
  }

  /**
   * A fence read from a payload. The one place a token that is not positive is read as {@link
   * #none()}: {@code 0} meant "no fence" while activities took a {@code long} (see {@link #orNone}),
   * and a negative number is how {@link #none()} itself is written.
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static Fence fromJson(long token) {
    return token > 0 ? of(token) : none();
  }

  /**
   * The fence an activity was given, where a run may have given none: runs from before the resume
   * context knew its fence scheduled {@code readResumeContext} without that argument (their
   * histories hold two payloads). Temporal passes a missing argument as its type's default: 0 to
   * the {@code long} it was, null to a {@code Fence}; both mean {@link #none()}.
   */
  public static Fence orNone(Fence given) {
    return given == null ? none() : given;
  }

  /** The payload form: the token as a plain number. */
  @JsonValue
  @Override
  public long token() {
    return token;
  }

  /** Whether this is {@link #none()}: the write is not made under a resume lock. */
  public boolean isNone() {
    return token < 0;
  }
}
