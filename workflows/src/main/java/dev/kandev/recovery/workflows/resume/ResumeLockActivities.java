package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.Fence;
import io.temporal.activity.ActivityInterface;

/** The per-session resume lock. */
@ActivityInterface
public interface ResumeLockActivities {
  /**
   * Takes the lock for {@code owner} and returns its fence; fails with the retryable type
   * {@code RESUME_LOCK_HELD} while someone else holds it.
   */
  Fence acquireResumeLock(String sessionId, String owner);

  /** Releases the lock if {@code owner} holds it; harmless otherwise. */
  void releaseResumeLock(String sessionId, String owner);
}
