package dev.kandev.recovery.worker.recovery;

import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.ResumeLock;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.store.TransitionResult;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session stays STARTING if its resume ended without settling or compensating: an operator
 * terminated the workflow, or a compensation gave up after retrying for a day. Nothing would restore
 * it, and Resume refuses a STARTING session. This finds such sessions — STARTING while the latest
 * run of {@code resume-session-<id>} is not running — and restores the state the session had before
 * (from its events; FAILED if none says) with the guarded transition, under the fence of the lock
 * the ended run still holds, then releases that lock and revokes the session's credential leases
 * (no agent of that run serves it: its launch ended with it, or never ran). A stale workflow task of a
 * run that had already decided to fail can leave such a session too (docs/contract.md "Stale workflow
 * tasks"), with a lease.
 */
public record StaleStartingRecovery(
    Transactions transactions, SessionStore sessions, ResumeLockStore locks, ResumeClient resumes,
    Consumer<String> revokeLeases) {
  private static final Logger log = LoggerFactory.getLogger(StaleStartingRecovery.class);

  /** Restores every session left STARTING by a resume that no longer runs; returns their ids. */
  public List<String> restoreStaleSessions() {
    List<String> restored = new ArrayList<>();
    List<String> starting = transactions.inTransaction("list the STARTING sessions",
        h -> sessions.idsIn(h, SessionState.STARTING));
    for (String sessionId : starting) {
      if (resumes.attach(sessionId, null).isRunning()) {
        continue; // its saga settles or restores the session
      }
      Restore restore = transactions.inTransaction("restore the stale STARTING session " + sessionId,
          h -> restore(h, sessionId));
      if (restore.result().won()) {
        log.warn("session {}: was STARTING with no resume running; restored to {}", sessionId, restore.prior());
        revokeLeases.accept(sessionId);
        restored.add(sessionId);
      }
    }
    return restored;
  }

  private record Restore(SessionState prior, TransitionResult result) {}

  /** The transition back and the release of the ended run's lock, in one transaction. */
  private Restore restore(Handle h, String sessionId) {
    Optional<ResumeLock> endedRunsLock = locks.current(h, sessionId)
        .filter(lock -> lock.owner().startsWith(ResumeRequest.workflowId(sessionId) + "/"));
    SessionState prior = sessions.stateBeforeLast(h, sessionId, SessionState.STARTING).orElse(SessionState.FAILED);
    TransitionResult result = sessions.transition(h, sessionId, Set.of(SessionState.STARTING), prior,
        "stale STARTING: its resume ended without settling",
        "the resume of this session ended while it was STARTING; Resume or Start fresh",
        endedRunsLock.map(ResumeLock::fence).orElse(Fence.none()));
    endedRunsLock.ifPresent(lock -> locks.release(h, sessionId, lock.owner()));
    return new Restore(prior, result);
  }
}
