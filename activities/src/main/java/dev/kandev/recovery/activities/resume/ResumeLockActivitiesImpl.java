package dev.kandev.recovery.activities.resume;

import dev.kandev.recovery.activities.store.ResumeLock;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.resume.ResumeLockActivities;
import java.time.Duration;
import java.util.Optional;

/**
 * The resume lock's activities on {@code locks}; {@code ttl} is how long a lock outlives a resume
 * whose process vanished, longer than any resume.
 */
public record ResumeLockActivitiesImpl(Transactions transactions, ResumeLockStore locks, Duration ttl)
    implements ResumeLockActivities {
  @Override
  public Fence acquireResumeLock(String sessionId, String owner) {
    // The holder is read in the same transaction as the refused acquisition, so it is the one that refused it.
    Acquisition acquisition = transactions.inTransaction("acquire the resume lock of session " + sessionId, h -> {
      Optional<ResumeLock> lock = locks.acquire(h, sessionId, owner, ttl);
      return new Acquisition(lock, lock.isPresent() ? Optional.empty() : locks.current(h, sessionId));
    });
    if (acquisition.lock().isEmpty()) {
      String holder = acquisition.holder().map(l -> l.owner() + " until " + l.expiresAt()).orElse("someone else");
      throw FailureType.RESUME_LOCK_HELD.failure("session " + sessionId + " is locked for a resume by " + holder);
    }
    return acquisition.lock().get().fence();
  }

  @Override
  public void releaseResumeLock(String sessionId, String owner) {
    transactions.inTransaction("release the resume lock of session " + sessionId, h -> locks.release(h, sessionId, owner));
  }

  private record Acquisition(Optional<ResumeLock> lock, Optional<ResumeLock> holder) {}
}
