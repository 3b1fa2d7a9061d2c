package dev.kandev.recovery.activities.credentials;

import dev.kandev.recovery.workflows.FailureType;

/**
 * A credential broker failure with its stable {@link #type()} of the catalogue (the Temporal
 * failure type), which says whether retrying may help. Messages never contain a secret.
 */
public final class CredentialException extends RuntimeException {
  private final FailureType type;

  private CredentialException(FailureType type, String message, Throwable cause) {
    super(message, cause);
    this.type = type;
  }

  /** One of the catalogue's {@code CREDENTIAL_*} types, or {@code RESUME_LOCK_LOST}. */
  public FailureType type() {
    return type;
  }

  /** Whether trying again may help: only when GitHub could not be reached or failed. */
  public boolean retryable() {
    return type.retryable();
  }

  public static CredentialException sessionTerminal(String sessionId, String state) {
    return new CredentialException(
        FailureType.CREDENTIAL_SESSION_TERMINAL,
        "git credential scope denied: session is terminal (session " + sessionId + " is " + state + ")", null);
  }

  /** The resume attempt asking for leases no longer holds its session's resume lock. */
  public static CredentialException resumeLockLost(String sessionId, long fence) {
    return new CredentialException(FailureType.RESUME_LOCK_LOST, "no credential lease for session " + sessionId
        + ": its resume lock no longer carries fence " + fence + " (the resume ended or a newer one took the lock)", null);
  }

  public static CredentialException scopeDenied(String reason) {
    return new CredentialException(FailureType.CREDENTIAL_SCOPE_DENIED, "git credential scope denied: " + reason, null);
  }

  public static CredentialException configMissing(String what) {
    return new CredentialException(FailureType.CREDENTIAL_CONFIG_MISSING, "git credential configuration missing: " + what, null);
  }

  public static CredentialException configInvalid(String what, Throwable cause) {
    return new CredentialException(FailureType.CREDENTIAL_CONFIG_INVALID, "git credential configuration invalid: " + what, cause);
  }

  public static CredentialException providerRejected(String what) {
    return new CredentialException(FailureType.CREDENTIAL_PROVIDER_REJECTED, what, null);
  }

  public static CredentialException providerUnavailable(String what, Throwable cause) {
    return new CredentialException(FailureType.CREDENTIAL_PROVIDER_UNAVAILABLE, what, cause);
  }

  public static CredentialException leaseInvalid(String reason) {
    return new CredentialException(FailureType.CREDENTIAL_LEASE_INVALID, "git credential lease invalid: " + reason, null);
  }

  @Override
  public String toString() {
    return "CredentialException[" + type + (type.retryable() ? ", retryable" : "") + "]: " + getMessage();
  }
}
