package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import dev.kandev.recovery.workflows.model.SessionState;
import io.temporal.activity.ActivityInterface;

/**
 * Guarded reads and writes of the session for a resume. Every write carries the resume lock's
 * {@link Fence} and is a compare-and-set on the session state.
 */
@ActivityInterface
public interface SessionActivities {
  /**
   * Reads the session while it still shows its prior state. Fails (non-retryable) with {@code
   * SESSION_NOT_FOUND}, {@code SESSION_NOT_RESUMABLE}, {@code AGENT_UNKNOWN} or {@code
   * AGENT_ALREADY_RUNNING}, changing nothing. A session this very resume (its lock's {@code
   * fence}) already moved to STARTING — the read runs again after its workflow task was lost
   * — is read with the state it was moved from. A run from before the context knew its fence reads
   * with {@link Fence#none()} (see {@link Fence#orNone}).
   */
  ResumeContext readResumeContext(String sessionId, ResumeMode mode, Fence fence);

  /** The user's Start fresh: clears both persisted identities. The only place they are cleared. */
  void clearIdentityForFreshStart(String sessionId, Fence fence);

  /**
   * Guarded transition {@code priorState → STARTING}, published as a session event. Fails with
   * {@code SESSION_STATE_SUPERSEDED} if the session is no longer in {@code priorState}.
   */
  void markStarting(String sessionId, SessionState priorState, String reason, Fence fence);

  /**
   * Writes {@code metadata.git_credential_snapshot} (null: removes a stale one), only while the
   * session is STARTING.
   */
  void persistCredentialSnapshot(String sessionId, GitCredentialSnapshot snapshot, Fence fence);

  /**
   * {@code STARTING → WAITING_FOR_INPUT} (a resumed agent is idle: no prompt is re-sent) and, in the
   * same transaction, a task that was IN_PROGRESS or SCHEDULING moves to REVIEW, the Turn Finished
   * bucket: both or neither.
   */
  SessionState settleSession(String sessionId, Fence fence);

  /**
   * Compensation: {@code STARTING → priorState} with the failure as error message, only if the
   * session is still STARTING; a concurrent terminal winner is left alone. Returns the state now.
   */
  SessionState restorePriorState(String sessionId, SessionState priorState, String errorMessage, Fence fence);

  /** Compensation: puts back the snapshot of before this attempt (null: removes it), only while STARTING. */
  void restoreCredentialSnapshot(String sessionId, GitCredentialSnapshot previousSnapshot, Fence fence);

  /**
   * Compensation of the steps that only a lost attempt of a workflow task ran, past where the
   * history stops: puts back the snapshot a persist kept under {@code fence}, byte for byte, in
   * whatever state the session is; then a session this resume moved to STARTING goes back to the
   * state it left, with {@code errorMessage} (a concurrent winner is left alone). While the lock is
   * held; nothing written under {@code fence}, or no such session: nothing changes.
   */
  void undoLostTaskWrites(String sessionId, String errorMessage, Fence fence);
}
