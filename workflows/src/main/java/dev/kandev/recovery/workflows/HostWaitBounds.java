package dev.kandev.recovery.workflows;

import java.time.Duration;

/**
 * How long a launch waits on its host's queue for a worker of that host to take it (Temporal's
 * schedule-to-start timeout). Past it the resume fails with {@code AGENT_HOST_UNAVAILABLE}, the
 * session restored, nothing launched. The wait includes time behind the host's cap on concurrent
 * launches, so a host busy with more launches than its cap can take in that time looks unavailable
 * too — except to restart recovery, whose resumes the host's own (live) worker starts and which ask
 * for {@link #RESTART_RECOVERY} (the resume request's {@code hostWait}).
 */
public final class HostWaitBounds {
  /** The default bound of a resume's launch (a worker may configure another). */
  public static final Duration DEFAULT = Duration.ofSeconds(60);
  /** The bound of a restart recovery's launch: its host is alive, it may be busy with many. */
  public static final Duration RESTART_RECOVERY = Duration.ofMinutes(30);
  /** The smallest bound a worker may configure. */
  public static final Duration MINIMUM = Duration.ofSeconds(1);

  private HostWaitBounds() {}

  /** @throws IllegalArgumentException the bound is shorter than {@link #MINIMUM} */
  public static Duration validated(Duration wait) {
    if (wait == null || wait.compareTo(MINIMUM) < 0) {
      throw new IllegalArgumentException(
          "the host wait must be at least " + MINIMUM.toSeconds() + " s, got " + wait);
    }
    return wait;
  }
}
