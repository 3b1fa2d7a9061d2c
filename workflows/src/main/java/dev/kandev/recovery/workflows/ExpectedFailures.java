package dev.kandev.recovery.workflows;

import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;

/**
 * Failures the recovery reports by design — a session that does not exist or already has its
 * agent, a resume lock another resume holds, an agent that refused the launch, a runtime update
 * npm could not do — as {@link ApplicationFailure}s of Temporal's {@link
 * ApplicationErrorCategory#BENIGN} category: the SDK logs them at DEBUG, without the WARN and stack
 * trace of a fault, and leaves them out of its failure metrics. Genuine faults (a bug, an
 * unreachable database or GitHub) are not benign and keep their stack traces.
 */
public final class ExpectedFailures {
  private ExpectedFailures() {}

  /** Retrying cannot help: the user has to act (or nothing should happen). */
  public static ApplicationFailure nonRetryable(String message, String type, Object... details) {
    return builder(message, type, details).setNonRetryable(true).build();
  }

  /** Temporal's retry policy of the activity applies (e.g. a lock another resume holds). */
  public static ApplicationFailure retryable(String message, String type, Object... details) {
    return builder(message, type, details).build();
  }

  /** Non-retryable, with its cause; benign only if the cause is expected too (or there is none). */
  public static ApplicationFailure nonRetryableWithCause(String message, String type, Throwable cause, Object... details) {
    ApplicationFailure.Builder builder = ApplicationFailure.newBuilder()
        .setMessage(message).setType(type).setDetails(details).setNonRetryable(true).setCause(cause);
    if (cause == null || isExpected(cause)) {
      builder.setCategory(ApplicationErrorCategory.BENIGN);
    }
    return builder.build();
  }

  /**
   * Non-retryable, benign exactly when {@code after} (the failure that led to it, not attached) is
   * expected.
   */
  public static ApplicationFailure nonRetryableAfter(Throwable after, String message, String type, Object... details) {
    ApplicationFailure.Builder builder = ApplicationFailure.newBuilder()
        .setMessage(message).setType(type).setDetails(details).setNonRetryable(true);
    if (isExpected(after)) {
      builder.setCategory(ApplicationErrorCategory.BENIGN);
    }
    return builder.build();
  }

  /** Whether {@code failure}, or the failure it wraps (an activity's, a child's), is benign. */
  public static boolean isExpected(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ApplicationFailure application) {
        return application.getCategory() == ApplicationErrorCategory.BENIGN;
      }
    }
    return false;
  }

  private static ApplicationFailure.Builder builder(String message, String type, Object... details) {
    return ApplicationFailure.newBuilder().setMessage(message).setType(type).setDetails(details)
        .setCategory(ApplicationErrorCategory.BENIGN);
  }
}
