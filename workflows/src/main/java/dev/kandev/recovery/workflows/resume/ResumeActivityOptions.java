package dev.kandev.recovery.workflows.resume;

import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/**
 * Retry and timeout choices of the resume's activities; each is deliberate. A failure no retry can
 * heal is raised non-retryable ({@code FailureType}), so none of these retries it.
 */
public final class ResumeActivityOptions {
  /** Store writes are idempotent compare-and-sets: retry transient database faults, bounded. */
  public static final ActivityOptions STORE =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setBackoffCoefficient(2)
                  .setMaximumInterval(Duration.ofSeconds(10))
                  .setMaximumAttempts(5)
                  .build())
          .build();

  /**
   * The store steps as local activities (see {@link StoreSteps}): the same
   * timeout and retries, run by the worker that runs the workflow task.
   */
  public static final LocalActivityOptions STORE_LOCAL =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(STORE.getStartToCloseTimeout())
          .setRetryOptions(STORE.getRetryOptions())
          .build();

  /**
   * The lease activity of runs from before {@link #CREDENTIALS_LOCAL}: database faults are retried;
   * authorization rejections and a missing configuration are non-retryable failures.
   */
  public static final ActivityOptions CREDENTIALS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(45))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(2))
                  .setBackoffCoefficient(2)
                  .setMaximumInterval(Duration.ofSeconds(20))
                  .setMaximumAttempts(4)
                  .build())
          .build();

  /**
   * The lease as a local activity (see {@code ResumeSaga#issueLease}): the timeout and
   * retries of {@link #CREDENTIALS}, run by the worker that runs the workflow task. Issuing is a
   * database transaction (GitHub is asked when a lease is redeemed, not when it is issued); a refused
   * scope or a missing configuration is non-retryable, so only faults are retried. A local activity
   * that outlasts the workflow task timeout is kept alive by the SDK (it heartbeats the task).
   */
  public static final LocalActivityOptions CREDENTIALS_LOCAL =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(CREDENTIALS.getStartToCloseTimeout())
          .setRetryOptions(CREDENTIALS.getRetryOptions())
          .build();

  /**
   * One attempt: a broken agent is not relaunched in a loop; the user's Resume (token intact) is
   * the retry. The heartbeat timeout notices a dead worker, yet outlasts a stalled host ({@link
   * LaunchHeartbeat} says what the numbers trade; a worker may configure another timeout);
   * cancellation waits for the launch to stop so compensation never races a half-started agent.
   */
  public static final ActivityOptions LAUNCH =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofMinutes(6))
          .setHeartbeatTimeout(LaunchHeartbeat.TIMEOUT)
          .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .build();

  /**
   * Compensations and the lock release make the session recoverable again, and they are idempotent:
   * they outlast a database outage (backoff up to a minute, for up to a day) instead of giving up
   * after a few attempts and leaving the session STARTING and locked.
   */
  public static final ActivityOptions COMPENSATION =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setScheduleToCloseTimeout(Duration.ofDays(1))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setBackoffCoefficient(2)
                  .setMaximumInterval(Duration.ofMinutes(1))
                  .build())
          .build();

  /**
   * The lock release after a settle, as a local activity: with the compensations' timeouts and
   * retries, so it outlasts a database outage rather than fail a resume whose agent runs.
   */
  public static final LocalActivityOptions UNLOCK_LOCAL =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(COMPENSATION.getStartToCloseTimeout())
          .setScheduleToCloseTimeout(COMPENSATION.getScheduleToCloseTimeout())
          .setRetryOptions(COMPENSATION.getRetryOptions())
          .build();

  /** The launch on the session's host: waits for a worker of that host at most {@code hostWait}. */
  static ActivityOptions launchOn(String launchQueue, Duration hostWait) {
    return ActivityOptions.newBuilder(LAUNCH).setTaskQueue(launchQueue).setScheduleToStartTimeout(hostWait).build();
  }

  /**
   * The agent's stop on its host: a compensation, but one that waits for the host's worker at most
   * {@code hostWait} — a dead host's agent is gone with it, and the restore must not wait for the host.
   */
  static ActivityOptions stopOn(String hostQueue, Duration hostWait) {
    return ActivityOptions.newBuilder(COMPENSATION).setTaskQueue(hostQueue).setScheduleToStartTimeout(hostWait).build();
  }

  private ResumeActivityOptions() {}
}
