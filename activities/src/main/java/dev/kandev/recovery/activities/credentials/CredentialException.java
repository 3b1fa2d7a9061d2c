package dev.kandev.recovery.activities.credentials;

/**
 * A credential broker failure with a stable {@link #type()} (used as the Temporal failure type) and
 * whether retrying may help. Messages never contain a secret.
 */
public final class CredentialException extends RuntimeException {
  /** The session is COMPLETED, FAILED or CANCELLED ("session is terminal"). */
  public static final String SESSION_TERMINAL = "CREDENTIAL_SESSION_TERMINAL";
  /** The scope is not authorized: wrong workspace/task, unknown session, unlinked repository. */
  public static final String SCOPE_DENIED = "CREDENTIAL_SCOPE_DENIED";
  /** The selected policy needs configuration that is absent (GitHub App id/key, installation). */
  public static final String CONFIG_MISSING = "CREDENTIAL_CONFIG_MISSING";
  /** Configuration is present but unusable (e.g. a malformed private key, a bad API base). */
  public static final String CONFIG_INVALID = "CREDENTIAL_CONFIG_INVALID";
  /** The provider refused the request (GitHub 4xx). */
  public static final String PROVIDER_REJECTED = "CREDENTIAL_PROVIDER_REJECTED";
  /** The provider could not be reached or failed (5xx, 429, timeouts): retryable. */
  public static final String PROVIDER_UNAVAILABLE = "CREDENTIAL_PROVIDER_UNAVAILABLE";
  /** The lease token or id is unknown, revoked, expired, or does not match the request. */
  public static final String LEASE_INVALID = "CREDENTIAL_LEASE_INVALID";

  private final String type;
  private final boolean retryable;

  private CredentialException(String type, boolean retryable, String message, Throwable cause) {
    super(message, cause);
    this.type = type;
    this.retryable = retryable;
  }

  public String type() {
    return type;
  }

  public boolean retryable() {
    return retryable;
  }

  public static CredentialException sessionTerminal(String sessionId, String state) {
    return new CredentialException(
        SESSION_TERMINAL, false,
        "git credential scope denied: session is terminal (session " + sessionId + " is " + state + ")", null);
  }

  public static CredentialException scopeDenied(String reason) {
    return new CredentialException(SCOPE_DENIED, false, "git credential scope denied: " + reason, null);
  }

  public static CredentialException configMissing(String what) {
    return new CredentialException(CONFIG_MISSING, false, "git credential configuration missing: " + what, null);
  }

  public static CredentialException configInvalid(String what, Throwable cause) {
    return new CredentialException(CONFIG_INVALID, false, "git credential configuration invalid: " + what, cause);
  }

  public static CredentialException providerRejected(String what) {
    return new CredentialException(PROVIDER_REJECTED, false, what, null);
  }

  public static CredentialException providerUnavailable(String what, Throwable cause) {
    return new CredentialException(PROVIDER_UNAVAILABLE, true, what, cause);
  }

  public static CredentialException leaseInvalid(String reason) {
    return new CredentialException(LEASE_INVALID, false, "git credential lease invalid: " + reason, null);
  }

  @Override
  public String toString() {
    return "CredentialException[" + type + (retryable ? ", retryable" : "") + "]: " + getMessage();
  }
}
