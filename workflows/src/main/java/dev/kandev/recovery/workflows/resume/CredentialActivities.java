package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.Fence;
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

  /**
   * {@link #issueCredentialLease} once per resume attempt ({@code fence}: the fencing token of its
   * resume lock): run again for the same attempt, it returns the leases it issued before (same ids,
   * same snapshot) while they can still be used, instead of issuing more. What lets the lease run as a
   * local activity, whose result is lost with a worker that dies before its workflow task completes.
   */
  CredentialLease issueCredentialLeaseForAttempt(String sessionId, Fence fence);

  /** Compensation: revokes every lease of the session. Idempotent. */
  void revokeCredentialLeases(String sessionId);

  /**
   * Compensation of a lease step that only a lost attempt of a workflow task ran: revokes the leases
   * {@link #issueCredentialLeaseForAttempt} issued for the attempt {@code fence}, if any, and no
   * other lease of the session (an agent that runs keeps its own). Idempotent.
   */
  void revokeAttemptLeases(String sessionId, Fence fence);
}
