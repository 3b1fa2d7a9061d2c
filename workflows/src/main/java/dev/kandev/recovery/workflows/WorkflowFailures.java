package dev.kandev.recovery.workflows;

import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.failure.TimeoutFailure;

/** What the workflows read from a failed step: its failure type, its message, whether no worker took it. */
public final class WorkflowFailures {
  private WorkflowFailures() {}

  /** The failure of the step itself: an activity failure's cause, else the failure. */
  public static Throwable cause(TemporalFailure failure) {
    return failure instanceof ActivityFailure && failure.getCause() != null ? failure.getCause() : failure;
  }

  /** The catalogue type of the failure ({@link FailureType}), or the class of a fault outside it. */
  public static String type(TemporalFailure failure) {
    Throwable cause = failure instanceof ActivityFailure ? failure.getCause() : failure;
    if (cause instanceof ApplicationFailure application) {
      return application.getType();
    }
    if (cause instanceof TimeoutFailure timeout) {
      return FailureType.ofTimeout(timeout.getTimeoutType());
    }
    if (cause instanceof CanceledFailure) {
      return FailureType.CANCELLED.type();
    }
    // A fault outside the catalogue (e.g. a failure of the server itself).
    return cause == null ? "UNKNOWN" : cause.getClass().getSimpleName();
  }

  /** The message the step's failure was raised with, without Temporal's decoration. */
  public static String message(TemporalFailure failure) {
    Throwable cause = cause(failure);
    return cause instanceof TemporalFailure temporal ? temporal.getOriginalMessage() : String.valueOf(cause.getMessage());
  }

  /** No worker of the step's queue took it in time: the step never ran. */
  public static boolean isScheduleToStartTimeout(TemporalFailure failure) {
    return failure instanceof ActivityFailure && failure.getCause() instanceof TimeoutFailure timeout
        && timeout.getTimeoutType() == TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START;
  }

  /** An activity cancelled before any worker started it (the history has no started event for it). */
  public static boolean isCancelledBeforeStart(TemporalFailure failure) {
    return failure instanceof ActivityFailure activity && activity.getCause() instanceof CanceledFailure
        && activity.getStartedEventId() <= 0;
  }
}
