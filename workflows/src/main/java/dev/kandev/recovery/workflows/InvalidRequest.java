package dev.kandev.recovery.workflows;

import io.temporal.failure.ApplicationFailure;

/**
 * A request refused before anything ran: a non-retryable {@code ApplicationFailure} of type
 * {@value #TYPE} whose message says what is wrong, expected (benign: one log line, no stack trace). It has no details (there is no session or job
 * yet to describe).
 */
public final class InvalidRequest {
  public static final String TYPE = "INVALID_REQUEST";

  private InvalidRequest() {}

  public static ApplicationFailure failure(String reason) {
    return ExpectedFailures.nonRetryable(message(reason), TYPE);
  }

  /** The message both the workflows and the Java clients use. */
  public static String message(String reason) {
    return reason + "; nothing was done";
  }
}
