package dev.kandev.recovery.activities.acp;

import java.time.Duration;
import java.util.Objects;

/**
 * Deadlines of an agent's launch and stop. Defaults follow Kandev: initialize 180 s, session/load
 * and session/new 2 min each.
 *
 * @param spawn starting the process (exec) and getting its pid
 * @param initialize the {@code initialize} answer
 * @param sessionLoad the {@code session/load} answer, including its history replay
 * @param sessionNew the {@code session/new} answer
 * @param stopGrace how long a stopping agent gets after stdin closes (and again after SIGTERM)
 */
public record AcpTimeouts(
    Duration spawn, Duration initialize, Duration sessionLoad, Duration sessionNew, Duration stopGrace) {
  public AcpTimeouts {
    for (Duration d : new Duration[] {spawn, initialize, sessionLoad, sessionNew, stopGrace}) {
      Objects.requireNonNull(d, "timeouts must not be null");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("timeouts must be positive, got " + d);
      }
    }
  }

  public static AcpTimeouts defaults() {
    return new AcpTimeouts(
        Duration.ofSeconds(30),
        Duration.ofSeconds(180),
        Duration.ofMinutes(2),
        Duration.ofMinutes(2),
        Duration.ofSeconds(5));
  }

  public AcpTimeouts withInitialize(Duration value) {
    return new AcpTimeouts(spawn, value, sessionLoad, sessionNew, stopGrace);
  }

  public AcpTimeouts withSessionLoad(Duration value) {
    return new AcpTimeouts(spawn, initialize, value, sessionNew, stopGrace);
  }

  public AcpTimeouts withSessionNew(Duration value) {
    return new AcpTimeouts(spawn, initialize, sessionLoad, value, stopGrace);
  }
}
