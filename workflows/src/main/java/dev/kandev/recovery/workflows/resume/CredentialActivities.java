package dev.kandev.recovery.workflows.resume;

import io.temporal.activity.ActivityInterface;

/** The scoped git credential broker, seen from a resume. No secret crosses this interface. */
@ActivityInterface
public interface CredentialActivities {
  /**
   * Issues the scoped lease for the session's current credential policy. The broker reads the
   * session's state at this moment and rejects COMPLETED, FAILED and CANCELLED sessions ({@code
   * CREDENTIAL_SESSION_TERMINAL}).
   */
  CredentialLease issueCredentialLease(String sessionId);

  /** Compensation: revokes every lease of the session. Idempotent. */
  void revokeCredentialLeases(String sessionId);
}
