package dev.kandev.recovery.activities.resume;

import static dev.kandev.recovery.workflows.model.SessionState.STARTING;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.GuardedWriteResult;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionRecord;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.StaleFenceException;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.store.TransitionResult;
import dev.kandev.recovery.activities.store.WorkerPresenceStore;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.model.TaskState;
import dev.kandev.recovery.workflows.resume.ResumeContext;
import dev.kandev.recovery.workflows.resume.ResumeLockOwner;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.SessionActivities;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInfo;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public final class SessionActivitiesImpl implements SessionActivities {
  static final String SNAPSHOT_KEY = SessionStore.CREDENTIAL_SNAPSHOT_KEY;
  private static final Logger log = LoggerFactory.getLogger(SessionActivitiesImpl.class);

  private final Transactions transactions;
  private final SessionStore sessions;
  private final SessionIdentityStore identities;
  private final ExecutorsRunningStore executors;
  private final ObjectMapper json;
  private final Predicate<String> isKnownAgent;
  private final Predicate<String> runsHere;
  private final String workerInstance;
  private final String host;
  private final ResumeLockStore locks;
  private final Duration lockTtl;
  private final ResumeRuns runs;

  /**
   * @param isKnownAgent whether an agent id has a profile on this worker
   * @param runsHere whether this worker runs a session's agent
   * @param workerInstance this worker's instance, whose claims {@code executors_running} does not count
   * @param host this worker's executor host: where a session not bound to a host yet is launched
   * @param lockTtl the resume lock's time to live, for a lock the settle holds again (see {@link #unsettle})
   * @param runs whether a resume run has ended, for a settle run again after its lock was released
   */
  /** Every state: the kept snapshot goes back wherever a concurrent writer moved the session. */
  private static final Set<SessionState> ANY_STATE = java.util.EnumSet.allOf(SessionState.class);

  public SessionActivitiesImpl(
      Transactions transactions,
      SessionStore sessions,
      SessionIdentityStore identities,
      ExecutorsRunningStore executors,
      ObjectMapper json,
      Predicate<String> isKnownAgent,
      Predicate<String> runsHere,
      String workerInstance,
      String host,
      ResumeLockStore locks,
      Duration lockTtl,
      ResumeRuns runs) {
    this.transactions = transactions;
    this.sessions = sessions;
    this.identities = identities;
    this.executors = executors;
    this.json = json;
    this.isKnownAgent = isKnownAgent;
    this.runsHere = runsHere;
    this.workerInstance = workerInstance;
    this.host = host;
    this.locks = locks;
    this.lockTtl = lockTtl;
    this.runs = runs;
  }

  /**
   * What the resume context is made of, read on one snapshot; {@code startedFrom}: the session is
   * STARTING by this very resume (its context read again after its workflow task was lost), from
   * that state.
   */
  private record ContextRows(SessionRecord session, Optional<String> liveOwnerElsewhere, SessionIdentity identity,
      Optional<SessionState> startedFrom, Optional<String> kandevAgent) {}

  private Optional<SessionState> ownStarting(Handle h, SessionRecord session, Fence fence) {
    return session.state() == STARTING && sessions.lastStartedUnder(h, session.id(), fence)
        ? sessions.stateBeforeLast(h, session.id(), STARTING)
        : Optional.empty();
  }

  @Override
  public ResumeContext readResumeContext(String sessionId, ResumeMode mode, Fence fence) {
    if (sessionId == null || sessionId.isBlank() || mode == null) {
      throw FailureType.INVALID_REQUEST.failure("a resume needs a session id and a mode");
    }
    requireNewestWorkflowTask(sessionId, Fence.orNone(fence));
    ContextRows rows = transactions.inSnapshot("read the resume context of session " + sessionId,
        h -> sessions.find(h, sessionId)
            .map(session -> new ContextRows(session, executors.liveOwnerOtherThan(h, sessionId, workerInstance),
                identities.read(h, sessionId), ownStarting(h, session, Fence.orNone(fence)),
                executors.kandevAgentOf(h, sessionId)))
            .orElse(null));
    if (rows == null) {
      throw FailureType.SESSION_NOT_FOUND.failure("unknown session '" + sessionId + "'");
    }
    SessionRecord session = rows.session();
    if (!session.state().isResumable()) {
      throw FailureType.SESSION_NOT_RESUMABLE.failure(
          "session " + sessionId + " is " + session.state() + " and cannot be resumed; create a new session instead");
    }
    if (session.state() == STARTING && rows.startedFrom().isEmpty()) {
      throw FailureType.AGENT_ALREADY_RUNNING.failure(
          "session " + sessionId + " is STARTING: a resume of it is under way");
    }
    Optional<String> runningOn = runsHere.test(sessionId) ? Optional.of(workerInstance) : rows.liveOwnerElsewhere();
    if (runningOn.isPresent()) {
      throw FailureType.AGENT_ALREADY_RUNNING.failure(
          "session " + sessionId + " is " + session.state() + " and its agent already runs on worker " + runningOn.get()
              + " (if that worker died, it counts as gone " + WorkerPresenceStore.GONE_AFTER.toSeconds()
              + " s after its last beat: Resume again then)");
    }
    if (rows.startedFrom().isEmpty() && rows.kandevAgent().isPresent()) {
      // Two agents must never serve one session: Kandev's is alive, so ours is not started.
      throw FailureType.KANDEV_AGENT_RUNNING.failure(
          "session " + sessionId + " is " + session.state() + " and Kandev's own agent serves it ("
              + rows.kandevAgent().get() + " in Kandev's executors_running); stop it in Kandev, then Resume again");
    }
    if (!isKnownAgent.test(session.agentId())) {
      throw FailureType.AGENT_UNKNOWN.failure(
          "session " + sessionId + " uses agent '" + session.agentId() + "', which has no profile on this worker");
    }
    if (mode == ResumeMode.RESUME && !rows.identity().hasToken()) {
      throw FailureType.NO_STORED_SESSION.failure("session " + sessionId + " has no stored provider session to resume"
          + " (it was never started, or a Start fresh cleared it); a Resume never creates a new one: Start fresh does");
    }
    return new ResumeContext(
        sessionId,
        session.taskId(),
        session.agentId(),
        rows.startedFrom().orElse(session.state()),
        rows.identity().resumeToken(),
        session.metadataEntry(SNAPSHOT_KEY).map(stored -> snapshot(sessionId, stored)).orElse(null),
        session.executorHost().isEmpty() ? host : session.executorHost());
  }

  /**
   * The read of a stamped fence is the first step of its workflow task under the lock: it makes its
   * task the newest one of the lock, so a stale copy of an older task writes nothing from then on
   * (not even a STARTING the read's run decides against), and is itself refused after a newer one.
   */
  private void requireNewestWorkflowTask(String sessionId, Fence fence) {
    if (fence.isStamped() && !transactions.inTransaction("check the resume lock of session " + sessionId,
        h -> ResumeLockStore.holds(h, sessionId, fence))) {
      throw FailureType.RESUME_LOCK_LOST.failure("session " + sessionId + ": the resume lock no longer holds fence "
          + fence.token() + " at workflow task " + fence.workflowTask()
          + " (a newer holder, or a newer workflow task of this resume: this is a stale copy); it reads and writes nothing");
    }
  }

  @Override
  public void clearIdentityForFreshStart(String sessionId, Fence fence) {
    requireLockFence(fence);
    try {
      transactions.run("clear the identity of session " + sessionId + " for a fresh start",
          h -> identities.clearForFreshStart(h, sessionId, fence));
    } catch (StaleFenceException e) {
      throw FailureType.RESUME_LOCK_LOST.failure(e.getMessage());
    }
  }

  @Override
  public void markStarting(String sessionId, SessionState priorState, String reason, Fence fence) {
    requireLockFence(fence);
    transactions.run("move session " + sessionId + " to STARTING", h -> {
      TransitionResult result = sessions.transition(h, sessionId, Set.of(priorState), STARTING, "resume: " + reason, "", fence);
      if (!isRetryOfAppliedWrite(h, sessionId, result, STARTING, fence)) {
        requireWon(sessionId, result.outcome(), result.now(), "moving to STARTING");
      }
    });
  }

  @Override
  public void persistCredentialSnapshot(String sessionId, GitCredentialSnapshot snapshot, Fence fence) {
    requireLockFence(fence);
    GuardedWriteResult result = transactions.inTransaction("write the credential snapshot of session " + sessionId, h -> {
      sessions.keepCredentialSnapshotBeforeResume(h, sessionId, fence);
      return writeSnapshot(h, sessionId, snapshot, fence);
    });
    requireWon(sessionId, result.outcome(), result.state(), "persisting the credential snapshot");
  }

  @Override
  public SessionState settleSession(String sessionId, Fence fence) {
    requireLockFence(fence);
    // A resumed agent is idle: like Kandev, a resume never re-sends a prompt, so no turn runs yet. The
    // turn is finished: the task belongs in the review ("Turn Finished") bucket, in the same transaction.
    Optional<String> lost = transactions.inTransaction("settle session " + sessionId, h -> {
      SessionState now = sessions.lockState(h, sessionId);
      Optional<String> agentLost = agentLost(h, sessionId);
      if (now == SessionState.WAITING_FOR_INPUT && sessions.lastStartedUnder(h, sessionId, fence)
          && sessions.lastEnteredByUs(h, sessionId).equals(Optional.of(SessionState.WAITING_FOR_INPUT))) {
        // This settle ran before and committed, but its result was lost with its worker.
        agentLost.ifPresent(reason -> unsettle(h, sessionId, fence));
        return agentLost;
      }
      if (now == STARTING && agentLost.isPresent()) {
        return agentLost;
      }
      TransitionResult result = sessions.settle(
          h, sessionId, Set.of(STARTING), TaskState.TURN_UNDER_WAY, "resume settled", "", fence);
      // Not STARTING any more (another writer, e.g. Kandev's boot, settled it first): a lost race.
      requireWon(sessionId, result.outcome(), result.now(), "settling at WAITING_FOR_INPUT");
      return Optional.<String>empty();
    });
    if (lost.isPresent()) {
      throw FailureType.AGENT_LOST.failure("session " + sessionId + " was not settled: " + lost.get());
    }
    return SessionState.WAITING_FOR_INPUT;
  }

  /**
   * Why the agent the launch left for the session no longer serves it, if it does not: its row
   * stopped claiming a live process, its worker instance is gone, or (on this worker) its process
   * exited before the exit was recorded. A row that still claims the lost agent is recorded failed
   * here, in the caller's transaction, so nothing waits for a recovery pass to learn it.
   */
  private Optional<String> agentLost(Handle h, String sessionId) {
    Optional<ExecutorsRunningStore.RecordedAgent> recorded = executors.lockRecordedAgent(h, sessionId);
    if (recorded.isEmpty()) {
      return Optional.of("no agent is recorded for it");
    }
    ExecutorRecord agent = recorded.get().executor();
    String which = "its agent (pid " + agent.pid() + " on worker instance " + agent.workerInstance() + ")";
    if (!recorded.get().claimsLive()) {
      return Optional.of(which + " is " + agent.status() + (agent.errorMessage().isEmpty() ? "" : ": " + agent.errorMessage()));
    }
    boolean here = agent.workerInstance().equals(workerInstance);
    if (here ? runsHere.test(sessionId) : recorded.get().instanceAlive()) {
      return Optional.empty();
    }
    String lost = which + (here ? " exited" : " went with that instance, which is gone");
    executors.markExited(h, sessionId, agent.agentExecutionId(), "failed", "agent lost before its resume settled: " + lost);
    return Optional.of(lost);
  }

  /**
   * Takes back a settle whose result was lost and whose agent is gone since: the session returns to
   * STARTING under this resume's lock (held again if its release was lost too), so the resume's
   * compensation restores it like any failed resume. Nothing is taken back if another resume holds
   * the lock meanwhile, nor by a stale task of a run that has ended: its compensation would never
   * run (the lost agent is then restart recovery's to find).
   */
  private void unsettle(Handle h, String sessionId, Fence fence) {
    ActivityInfo info = Activity.getExecutionContext().getInfo();
    String owner = ResumeLockOwner.of(info.getWorkflowId(), info.getRunId());
    if (locks.releasedBy(h, owner) && runs.hasEnded(owner)) {
      log.info("session {}: run {} has ended; its stale settle takes nothing back", sessionId, owner);
      return;
    }
    if (locks.reclaim(h, sessionId, owner, fence, lockTtl)) {
      sessions.transition(h, sessionId, Set.of(SessionState.WAITING_FOR_INPUT), STARTING,
          "resume: its agent was lost before the settle was reported", "", fence);
    }
  }

  @Override
  public SessionState restorePriorState(String sessionId, SessionState priorState, String errorMessage, Fence fence) {
    requireLockFence(fence);
    TransitionResult result = transactions.inTransaction("restore session " + sessionId + " to " + priorState,
        h -> sessions.transition(h, sessionId, Set.of(STARTING), priorState, "resume rolled back", errorMessage, fence));
    if (!result.won()) {
      log.info("session {} not restored to {}: {} (now {})", sessionId, priorState, result.outcome(), result.now());
    }
    return result.now();
  }

  /**
   * Puts back, byte for byte, the snapshot this resume's persist kept before it wrote its own. With
   * none kept under this fence the persist never applied (the stored entry is still the one from
   * before, left alone) — or a version that kept no copy persisted it: then the stored entry is not
   * {@code previousSnapshot}, which is written back instead.
   *
   * <p>The kept copy is put back in whatever state the session is now: a concurrent writer (Kandev's
   * user cancelling, a failure it saw) may have taken the session out of STARTING, but the snapshot is
   * this resume's write, and while its lock is held (checked) nobody else wrote it. Guarded by
   * STARTING, it stayed, naming the failed resume's revoked lease (found by the fault campaign).
   */
  @Override
  public void restoreCredentialSnapshot(String sessionId, GitCredentialSnapshot previousSnapshot, Fence fence) {
    requireLockFence(fence);
    GuardedWriteResult result = transactions.inTransaction("restore the credential snapshot of session " + sessionId,
        h -> sessions.restoreCredentialSnapshotBeforeResume(h, sessionId, ANY_STATE, fence).orElseGet(() -> {
          GitCredentialSnapshot stored = sessions.get(h, sessionId).metadataEntry(SNAPSHOT_KEY)
              .map(entry -> snapshot(sessionId, entry)).orElse(null);
          return Objects.equals(stored, previousSnapshot) ? null : writeSnapshot(h, sessionId, previousSnapshot, fence);
        }));
    if (result != null && !result.applied()) {
      log.info("credential snapshot of session {} not restored: {} (state {})", sessionId, result.outcome(), result.state());
    }
  }

  @Override
  public void undoLostTaskWrites(String sessionId, String errorMessage, Fence fence) {
    requireLockFence(fence);
    transactions.inTransaction("undo what a lost workflow task wrote to session " + sessionId, h -> {
      Optional<SessionRecord> session = sessions.find(h, sessionId);
      if (session.isEmpty()) {
        return null; // it never existed, or was deleted: nothing to put back
      }
      sessions.restoreCredentialSnapshotBeforeResume(h, sessionId, ANY_STATE, fence).ifPresent(result ->
          log.info("session {}: the credential snapshot a lost workflow task of fence {} persisted {}", sessionId,
              fence.token(), result.applied() ? "was put back" : "stays: " + result.outcome()));
      ownStarting(h, session.get(), fence).ifPresent(prior -> {
        TransitionResult result = sessions.transition(h, sessionId, Set.of(STARTING), prior, "resume rolled back",
            errorMessage == null ? "" : errorMessage, fence);
        log.info("session {}: the STARTING a lost workflow task of fence {} set {}", sessionId, fence.token(),
            result.won() ? "went back to " + prior : "stays: " + result.outcome());
      });
      return null;
    });
  }

  /** {@code metadata.git_credential_snapshot} becomes {@code snapshot} (null: removed), only while STARTING. */
  private GuardedWriteResult writeSnapshot(Handle h, String sessionId, GitCredentialSnapshot snapshot, Fence fence) {
    JsonNode value = snapshot == null ? null : json.valueToTree(snapshot);
    return sessions.writeMetadataEntry(h, sessionId, SNAPSHOT_KEY, value, Set.of(STARTING), fence);
  }

  /**
   * A step whose result was lost (a worker died after the commit) runs again; finding the target
   * state of a session this resume moved to STARTING last means the first run applied it — also
   * after the resume released its lock (a settle run again with the release after it).
   */
  private boolean isRetryOfAppliedWrite(Handle h, String sessionId, TransitionResult result, SessionState target, Fence fence) {
    return result.outcome() == TransitionResult.Outcome.STATE_MISMATCH
        && result.now() == target
        && sessions.lastStartedUnder(h, sessionId, fence);
  }

  /** A resume writes only under its lock: a payload without a fence is refused, nothing written. */
  private static void requireLockFence(Fence fence) {
    if (fence == null || fence.isNone()) {
      throw FailureType.INVALID_REQUEST.failure("a resume's write needs the fence of its resume lock; the payload had none");
    }
  }

  private static void requireWon(String sessionId, TransitionResult.Outcome outcome, SessionState now, String what) {
    switch (outcome) {
      case APPLIED -> {}
      case FENCED -> throw FailureType.RESUME_LOCK_LOST.failure(
          "session " + sessionId + ": the resume lock was taken over before " + what);
      case STATE_MISMATCH -> throw FailureType.SESSION_STATE_SUPERSEDED.failure(
          "session " + sessionId + " became " + now + " before " + what + "; a concurrent transition won");
    }
  }

  /**
   * The stored snapshot as this version reads it (the non-secret fields it knows; null for a value
   * that is not a snapshot). The context carries it; a compensation puts back the stored value itself.
   */
  private GitCredentialSnapshot snapshot(String sessionId, JsonNode stored) {
    try {
      return json.treeToValue(stored, GitCredentialSnapshot.class);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      log.warn("session {}: the stored {} is not a credential snapshot this version reads ({}); a rollback puts it back as it was",
          sessionId, SNAPSHOT_KEY, e.getMessage());
      return null;
    }
  }
}
