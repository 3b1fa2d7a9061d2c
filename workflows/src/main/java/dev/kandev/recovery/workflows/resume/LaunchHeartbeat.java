package dev.kandev.recovery.workflows.resume;

import io.temporal.activity.ActivityOptions;
import java.time.Duration;
import java.util.Map;

/**
 * How a launch shows it is alive, and how long a silent one is given. The launch activity calls
 * heartbeat every {@link #CALL_EVERY} it is still under way (not at its start: a launch done sooner
 * sends none, one server round trip fewer); the worker sends one to the server at most every {@link
 * #SEND_EVERY} (the SDK's throttle, otherwise 80% of the timeout); the server fails a launch it has
 * not heard from for the heartbeat timeout ({@link #TIMEOUT} unless the worker is configured
 * otherwise).
 *
 * <p>The trade: a stalled host (a paused VM, swapping, a long GC) sends nothing, so a launch survives
 * any stall shorter than the timeout minus one send interval (55 s with the defaults), while a dead
 * worker's launch is failed and compensated only after the timeout (60 s, the same time after which
 * a worker that stopped beating in {@code worker_presence} counts as gone). A cancellation reaches
 * the launch with the next heartbeat's answer: within {@link #CALL_EVERY} of its start, then within
 * {@link #SEND_EVERY}, whatever the timeout.
 */
public final class LaunchHeartbeat {
  /** The default heartbeat timeout of the launch step. */
  public static final Duration TIMEOUT = Duration.ofSeconds(60);
  /** The smallest timeout a worker may configure: it must leave room for a send interval and a stall. */
  public static final Duration MINIMUM_TIMEOUT = Duration.ofSeconds(10);
  /** The most time between two heartbeats a worker sends for one activity (the SDK's throttle). */
  public static final Duration SEND_EVERY = Duration.ofSeconds(5);
  /** How often the launch activity records a heartbeat (the SDK sends the latest one when due). */
  public static final Duration CALL_EVERY = Duration.ofSeconds(1);

  /** The activity type of the launch step, as the workflow schedules it. */
  static final String LAUNCH_ACTIVITY_TYPE = "LaunchAgent";

  private LaunchHeartbeat() {}

  /**
   * The per-activity-type options a worker registers with the resume workflow when it configures
   * another heartbeat timeout; everything else about the launch step stays as the workflow defines it.
   *
   * @throws IllegalArgumentException the timeout is shorter than {@link #MINIMUM_TIMEOUT}
   */
  public static Map<String, ActivityOptions> withTimeout(Duration timeout) {
    if (timeout == null || timeout.compareTo(MINIMUM_TIMEOUT) < 0) {
      throw new IllegalArgumentException("the launch heartbeat timeout must be at least " + MINIMUM_TIMEOUT.toSeconds()
          + " s (a heartbeat is sent every " + SEND_EVERY.toSeconds() + " s), got " + timeout);
    }
    return Map.of(LAUNCH_ACTIVITY_TYPE, ActivityOptions.newBuilder().setHeartbeatTimeout(timeout).build());
  }
}
