package dev.kandev.recovery.activities.resume;

import dev.kandev.recovery.activities.store.ResumeLock;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.resume.ResumeLockActivities;
import java.time.Duration;
import java.util.Optional;

public final class ResumeLockActivitiesImpl implements ResumeLockActivities {
  private final ResumeLockStore locks;
  private final Duration ttl;

  /** @param ttl how long a lock outlives a resume whose process vanished; longer than any resume. */
  public ResumeLockActivitiesImpl(ResumeLockStore locks, Duration ttl) {
    this.locks = locks;
    this.ttl = ttl;
  }

  @Override
  public long acquireResumeLock(String sessionId, String owner) {
    Optional<ResumeLock> lock = locks.acquire(sessionId, owner, ttl);
    if (lock.isEmpty()) {
      String holder = locks.current(sessionId).map(l -> l.owner() + " until " + l.expiresAt()).orElse("someone else");
      throw FailureType.RESUME_LOCK_HELD.failure("session " + sessionId + " is locked for a resume by " + holder);
    }
    return lock.get().fencingToken();
  }

  @Override
  public void releaseResumeLock(String sessionId, String owner) {
    locks.release(sessionId, owner);
  }
}
