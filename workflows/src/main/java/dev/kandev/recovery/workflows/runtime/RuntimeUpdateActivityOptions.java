package dev.kandev.recovery.workflows.runtime;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/**
 * Retry and timeout choices of the runtime update's activities. The retry rules of the npm steps
 * live in the workflow: Temporal must never add attempts of its own.
 */
public final class RuntimeUpdateActivityOptions {
  /** Saving the job record retries transient database faults, bounded. */
  public static final ActivityOptions STORE =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder()
              .setInitialInterval(Duration.ofMillis(500))
              .setMaximumInterval(Duration.ofSeconds(10))
              .setMaximumAttempts(20)
              .build())
          .setSummary("save job record")
          .build();

  private RuntimeUpdateActivityOptions() {}

  /** An npm step: one attempt within {@code startToClose}. */
  public static ActivityOptions step(Duration startToClose, String summary) {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(startToClose)
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .setSummary(summary)
        .build();
  }

  /** An npm step on the requested host's queue, failing if none of its workers takes it within {@code hostWait}. */
  public static ActivityOptions stepOn(String hostQueue, Duration hostWait, Duration startToClose, String summary) {
    return ActivityOptions.newBuilder(step(startToClose, summary))
        .setTaskQueue(hostQueue)
        .setScheduleToStartTimeout(hostWait)
        .build();
  }
}
