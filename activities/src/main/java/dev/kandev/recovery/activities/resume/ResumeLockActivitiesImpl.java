package dev.kandev.recovery.activities.resume;

import dev.kandev.recovery.activities.store.ResumeLock;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.resume.ResumeLockActivities;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resume lock's activities on {@code locks}; {@code ttl} is how long a lock outlives a resume
 * whose process vanished, longer than any resume; {@code runs} says whether the run holding a lock
 * has ended (its lock is then taken over at once, not after the ttl).
 *
 * <p>A run that released its lock never takes one again: a workflow task of it that a stalled
 * worker still runs after the run ended is stale (docs/contract.md "Stale workflow tasks"), and
 * without a lock none of its writes applies.
 */
public record ResumeLockActivitiesImpl(Transactions transactions, ResumeLockStore locks, Duration ttl, ResumeRuns runs)
    implements ResumeLockActivities {
  private static final Logger log = LoggerFactory.getLogger(ResumeLockActivitiesImpl.class);

  /** Asking Temporal whether a holder's run has ended. */
  public ResumeLockActivitiesImpl(Transactions transactions, ResumeLockStore locks, Duration ttl) {
    this(transactions, locks, ttl, new TemporalResumeRuns());
  }

  @Override
  public Fence acquireResumeLock(String sessionId, String owner) {
    // The holder is read in the same transaction as the refused acquisition, so it is the one that refused it.
    Acquisition acquisition = transactions.inTransaction("acquire the resume lock of session " + sessionId, h -> {
      if (locks.releasedBy(h, owner)) {
        return new Acquisition(true, Optional.empty(), Optional.empty());
      }
      Optional<ResumeLock> lock = locks.acquire(h, sessionId, owner, ttl);
      return new Acquisition(false, lock, lock.isPresent() ? Optional.empty() : locks.current(h, sessionId));
    });
    if (acquisition.releasedBefore()) {
      throw FailureType.RESUME_LOCK_LOST.failure("run " + owner + " released the resume lock of session " + sessionId
          + " as it ended: this is a stale workflow task of that run (another worker finished the run), which takes"
          + " no lock and writes nothing");
    }
    if (acquisition.lock().isPresent()) {
      return acquisition.lock().get().fence();
    }
    Optional<ResumeLock> holder = acquisition.holder();
    if (holder.isPresent() && runs.hasEnded(holder.get().owner())) {
      Optional<ResumeLock> taken = transactions.inTransaction("take over the resume lock of session " + sessionId,
          h -> locks.takeOver(h, holder.get(), owner, ttl));
      if (taken.isPresent()) {
        log.warn("session {}: took over the resume lock that run {} (ended) still held", sessionId, holder.get().owner());
        return taken.get().fence();
      }
    }
    String by = holder.map(l -> l.owner() + " until " + l.expiresAt()).orElse("someone else");
    throw FailureType.RESUME_LOCK_HELD.failure("session " + sessionId + " is locked for a resume by " + by);
  }

  @Override
  public void releaseResumeLock(String sessionId, String owner) {
    transactions.inTransaction("release the resume lock of session " + sessionId, h -> locks.release(h, sessionId, owner));
  }

  private record Acquisition(boolean releasedBefore, Optional<ResumeLock> lock, Optional<ResumeLock> holder) {}
}
