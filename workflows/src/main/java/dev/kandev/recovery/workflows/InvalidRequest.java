package dev.kandev.recovery.workflows;

import io.temporal.failure.ApplicationFailure;

/**
 * A request refused before anything ran: a non-retryable {@code ApplicationFailure} of type
 * {@link FailureType#INVALID_REQUEST} whose message says what is wrong, expected (benign: one log
 * line, no stack trace). It has no details (there is no session or job yet to describe).
 */
public final class InvalidRequest {
  private InvalidRequest() {}

  public static ApplicationFailure failure(String reason) {
    return FailureType.INVALID_REQUEST.failure(message(reason));
  }

  /** The message both the workflows and the Java clients use. */
  public static String message(String reason) {
    return reason + "; nothing was done";
  }
}
