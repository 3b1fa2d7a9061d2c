package dev.kandev.recovery.workflows.runtime;

import java.time.Duration;

/**
 * Start-to-close timeouts of the npm steps. The activities bound their child processes more
 * tightly (NpmSettings), so a step ends with its own bounded message rather than a Temporal timeout.
 */
public final class RuntimeStepTimeouts {
  public static final Duration UPDATE = Duration.ofMinutes(6);
  public static final Duration REPAIR = Duration.ofMinutes(2);
  public static final Duration PROBE = Duration.ofMinutes(2);
  /** What a child's own bound must leave for starting, killing and reporting. */
  public static final Duration MARGIN = Duration.ofSeconds(30);

  private RuntimeStepTimeouts() {}
}
