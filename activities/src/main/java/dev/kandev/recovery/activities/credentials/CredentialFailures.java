package dev.kandev.recovery.activities.credentials;

import io.temporal.failure.ApplicationFailure;

/** How an activity wrapper reports a {@link CredentialException} to Temporal. */
public final class CredentialFailures {
  private CredentialFailures() {}

  /**
   * An {@link ApplicationFailure} with the exception's stable type, retryable exactly when the
   * exception is. The message is the exception's (secret-free) message; no cause is attached, so no
   * third-party message reaches history. A non-retryable one is a classified, expected outcome
   * (benign); a retryable one means GitHub failed, a fault worth its stack trace.
   */
  public static ApplicationFailure toApplicationFailure(CredentialException e) {
    return e.retryable()
        ? ApplicationFailure.newFailure(e.getMessage(), e.type().type())
        : e.type().failure(e.getMessage());
  }
}
