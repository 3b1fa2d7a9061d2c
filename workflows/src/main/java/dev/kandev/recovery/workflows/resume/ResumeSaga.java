package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.ExpectedFailures;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.HostWaitBounds;
import dev.kandev.recovery.workflows.WorkflowFailures;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Saga;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInfo;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * One run of the resume saga, in the spec's order: lock → read the prior state → (Start fresh: clear
 * the identity) → guarded STARTING → lease → persist the snapshot → launch and load → settle →
 * unlock. The transition and every step after it register their compensation before they run (a
 * step whose result was lost is compensated too), so a failure, a timeout or a cancellation restores
 * the prior recoverable state (unless a terminal transition won the race), revokes the leases and
 * stops a half-launched agent. Restoring is guarded by STARTING, so compensating a transition that
 * never applied changes nothing; what a lost attempt of a workflow task wrote past the history is
 * undone by the lock's fence. The lock is released by owner whatever happened.
 */
final class ResumeSaga {
  private static final Logger log = Workflow.getLogger(ResumeSaga.class);

  private final ResumeRequest request;
  private final String sessionId;
  private final String owner;
  private final Duration hostWait;
  private final ResumeStubs stubs;
  private final ResumeChanges changes;
  private final ResumeNarration narration;
  private final ResumeMetrics metrics;
  private final Saga compensations = new Saga(new Saga.Options.Builder().setContinueWithError(true).build());
  private final ResumeAttempt attempt = new ResumeAttempt();
  private StoreSteps store;
  /** The failed resume's type and story, while its listed outcome is FAILED: a late cancel may turn it CANCELLED. */
  private String failedType;
  private FailedResume failed;

  ResumeSaga(ResumeRequest request, Duration hostWait, ResumeStubs stubs, ResumeChanges changes,
      ResumeNarration narration, ResumeMetrics metrics) {
    this.request = request;
    this.sessionId = request.sessionId();
    WorkflowInfo info = Workflow.getInfo();
    this.owner = ResumeLockOwner.of(info.getWorkflowId(), info.getRunId());
    this.hostWait = hostWait;
    this.stubs = stubs;
    this.changes = changes;
    this.narration = narration;
    this.metrics = metrics;
  }

  ResumeResult run() {
    store = changes.localStoreSteps() ? stubs.localStore : stubs.storeActivities;
    try {
      acquireLock();
      ResumeContext context = readPriorState();
      HostAgents agents = agentsOf(context);
      if (request.mode() == ResumeMode.START_FRESH) {
        clearIdentity();
      }
      markStarting(context);
      CredentialLease lease = issueLease();
      persistSnapshot(context, lease);
      LaunchOutcome launched = launch(context, agents, lease);
      return settle(context, agents, launched);
    } catch (ActivityFailure | CanceledFailure failure) {
      throw compensateAndFail(failure);
    } finally {
      releaseLock();
    }
  }

  private void acquireLock() {
    narration.enter(ResumeStep.ACQUIRE_LOCK, "resume lock for " + sessionId);
    attempt.fence = store.locks().acquireResumeLock(sessionId, owner);
  }

  private ResumeContext readPriorState() {
    narration.enter(ResumeStep.READ_CONTEXT, "session, stored token, agent and credential policy");
    ResumeContext context = store.sessions().readResumeContext(sessionId, request.mode(), taskFence());
    attempt.context = context;
    narration.describe(context);
    return context;
  }

  /**
   * The lock's fence for a store write (or a compensation) made now, stamped with this workflow task
   * (its started event id), so the lock refuses the writes of a stale copy of an earlier task of this
   * run (a worker back from a stall) once a newer task wrote. Read when the write is made, never
   * earlier: a compensation carries the task that runs it. The launch carries the token alone.
   */
  private Fence taskFence() {
    return attempt.fence.inWorkflowTask(Workflow.getInfo().getHistoryLength());
  }

  private void clearIdentity() {
    narration.enter(ResumeStep.CLEAR_IDENTITY, "user chose Start fresh: clearing the stored provider session");
    stubs.sessions.clearIdentityForFreshStart(sessionId, taskFence());
    attempt.identityCleared = true;
  }

  private void markStarting(ResumeContext context) {
    narration.enter(ResumeStep.MARK_STARTING, context.priorState() + " -> STARTING");
    compensations.addCompensation(() -> attempt.restoredState =
        stubs.restorer.restorePriorState(sessionId, context.priorState(), attempt.errorMessage, taskFence()));
    store.sessions().markStarting(sessionId, context.priorState(), request.reason(), taskFence());
  }

  /**
   * The session's credential lease. As a local activity it runs in the workflow task that reaches it,
   * with the snapshot after it, so a resume takes 2 workflow tasks and 1 activity (the launch). Its
   * re-run after a lost workflow task is recognised by the attempt's fence: it returns the leases it
   * issued before (while usable) instead of a second set. Histories from before ran it as an activity.
   */
  private CredentialLease issueLease() {
    narration.enter(ResumeStep.ISSUE_CREDENTIAL_LEASE, "scoped git credential lease");
    compensations.addCompensation(stubs.revoker::revokeCredentialLeases, sessionId);
    return changes.localCredentialLease()
        ? stubs.localLease.issueCredentialLeaseForAttempt(sessionId, taskFence())
        : stubs.leaseActivity.issueCredentialLease(sessionId);
  }

  private void persistSnapshot(ResumeContext context, CredentialLease lease) {
    narration.enter(ResumeStep.PERSIST_CREDENTIAL_SNAPSHOT, lease.describe());
    compensations.addCompensation(() ->
        stubs.restorer.restoreCredentialSnapshot(sessionId, context.previousSnapshot(), taskFence()));
    store.sessions().persistCredentialSnapshot(sessionId, lease.snapshot(), taskFence());
  }

  private LaunchOutcome launch(ResumeContext context, HostAgents agents, CredentialLease lease) {
    narration.enter(ResumeStep.LAUNCH_AGENT, attempt.hasToken() ? "session/load " + context.resumeToken() : "session/new");
    attempt.agents = agents;
    compensations.addCompensation(this::stopAgent);
    return agents.launcher().launchAgent(sessionId, lease.leaseIds(), attempt.fence);
  }

  private ResumeResult settle(ResumeContext context, HostAgents agents, LaunchOutcome launched) {
    narration.enter(ResumeStep.SETTLE_SESSION, "agent " + launched.agentName() + " pid " + launched.pid() + agents.where());
    SessionState finalState = store.sessions().settleSession(sessionId, taskFence());
    attempt.settled = true;

    ResumeOutcome outcome = launched.loaded() ? ResumeOutcome.RESUMED : ResumeOutcome.STARTED_FRESH;
    narration.outcome(outcome.name());
    metrics.count(outcome.name(), "none");
    narration.note(outcome + ": provider session " + launched.providerSessionId() + ", session " + finalState);
    narration.endWith("**" + outcome + "** provider session " + launched.providerSessionId() + ", session " + finalState);
    return new ResumeResult(sessionId, context.taskId(), outcome, finalState, launched.providerSessionId(), launched.loaded());
  }

  /**
   * Also when the acquisition failed: its result may have been lost after the lock was taken.
   * Releasing by owner never touches someone else's lock. The lock is released locally only after a
   * settle: a failed resume releases it with the compensations' retries.
   */
  private void releaseLock() {
    narration.enter(ResumeStep.RELEASE_LOCK, "");
    ResumeLockActivities releaser = attempt.settled ? store.unlocker() : stubs.unlocker;
    Workflow.newDetachedCancellationScope(() -> releaser.releaseResumeLock(sessionId, owner)).run();
    if (failed != null && lateCancel()) {
      listCancelled(failed, failedType); // the cancel arrived while the lock was released
    } else if (failed != null) {
      metrics.count(ResumeOutcome.FAILED.name(), failedType);
    }
    narration.done();
  }

  /**
   * The launcher and stopper of the session's agent: on its host's queues, or on the shared queue for
   * histories from before hosts had queues (and a context from an activity that predates them).
   */
  private HostAgents agentsOf(ResumeContext context) {
    boolean hostQueues = changes.hostQueues();
    String host = context.executorHost();
    if (!hostQueues || host == null || host.isEmpty()) {
      return stubs.sharedQueue(hostWait);
    }
    return stubs.onHost(host, restartRecoveryWait() ? HostWaitBounds.RESTART_RECOVERY : hostWait);
  }

  /**
   * Whether the launch waits {@link HostWaitBounds#RESTART_RECOVERY}: the request says so. Runs started
   * before the request had {@code hostWait} chose it by their reason, and keep doing so on replay.
   */
  private boolean restartRecoveryWait() {
    return changes.hostWaitField()
        ? request.hostWait() == RequestedHostWait.RESTART_RECOVERY
        : ResumeRequest.RESTART_RECOVERY.equals(request.reason());
  }

  /**
   * Compensation of the launch: stops the agent on its host. Nothing to stop if no worker ever took
   * the launch. If the host's worker does not take the stop in time either, the host is gone and its
   * agents with it: the stop on the shared queue still withdraws the launch (the host's worker, if it
   * comes back, stops what it finds unowned).
   */
  private void stopAgent() {
    if (attempt.launchNeverStarted) {
      return;
    }
    try {
      attempt.agents.stopper().stopAgent(sessionId);
    } catch (ActivityFailure failure) {
      if (!WorkflowFailures.isScheduleToStartTimeout(failure)) {
        throw failure;
      }
      narration.note("COMPENSATE: host " + attempt.agents.host() + " did not take the stop; withdrawing the launch");
      stubs.sharedStopper.stopAgent(sessionId);
    }
  }

  /**
   * A step failed or the resume was cancelled: says why, runs the compensations of what ran (none if
   * the context was never read), and returns what the run fails with.
   */
  private TemporalFailure compensateAndFail(TemporalFailure failure) {
    ResumeStep failedStep = narration.step();
    boolean atLaunch = failedStep == ResumeStep.LAUNCH_AGENT;
    boolean noHostWorker = atLaunch && WorkflowFailures.isScheduleToStartTimeout(failure);
    attempt.launchNeverStarted = noHostWorker || (atLaunch && cancelledBeforeItStarted(failure));
    String type = noHostWorker ? FailureType.AGENT_HOST_UNAVAILABLE.type() : WorkflowFailures.type(failure);
    String cause = noHostWorker ? FailedResume.noHostWorker(attempt.agents) : WorkflowFailures.message(failure);
    attempt.errorMessage = FailedResume.errorMessage(failedStep, type, attempt, cause);
    narration.note(attempt.errorMessage);
    if (!attempt.changedNothing()) {
      narration.enter(ResumeStep.COMPENSATE, "restoring the prior state");
      Workflow.newDetachedCancellationScope(compensations::compensate).run();
    }
    undoLostTaskWrites(failedStep);
    if (failure instanceof CanceledFailure || cancelledStep(failure)) {
      narration.endWith("**CANCELLED** at " + failedStep + ": the prior state restored");
      narration.outcome("CANCELLED");
      metrics.count("CANCELLED", type);
      return failure;
    }
    // Histories from before one name per outcome said REJECTED for a resume that changed nothing.
    ResumeOutcome outcome = attempt.changedNothing() && !changes.oneFailedOutcome()
        ? ResumeOutcome.REJECTED : ResumeOutcome.FAILED;
    FailedResume failed = FailedResume.of(sessionId, failedStep, type, attempt);
    log.warn("{}", failed.message());
    if (lateCancel()) {
      listCancelled(failed, type);
    } else if (outcome == ResumeOutcome.FAILED) {
      narration.outcome(outcome.name());
      narration.endWith(failed.ending());
      this.failed = failed; // counted once the lock is released, unless a cancel arrived by then
      this.failedType = type;
    } else {
      narration.outcome(outcome.name());
      narration.endWith(failed.ending());
      metrics.count(outcome.name(), type);
    }
    return ExpectedFailures.nonRetryableWithCause(failed.message(), type, failure, failed.details());
  }

  /**
   * A lost attempt of this run's workflow task (its worker stalled or died before the completion was
   * recorded) may have run the local steps — STARTING, the lease, the snapshot — past {@code
   * failedStep}, where the history stops; the compensations follow the history, so those writes are
   * undone by the fence they were made under (finding 15). Nothing to do before the lock was held,
   * nor for a step the history reached (its compensation covers it). Histories from before did not,
   * and keep not doing so on replay.
   */
  private void undoLostTaskWrites(ResumeStep failedStep) {
    boolean leasePassed = failedStep.compareTo(ResumeStep.ISSUE_CREDENTIAL_LEASE) >= 0;
    boolean snapshotPassed = failedStep.compareTo(ResumeStep.PERSIST_CREDENTIAL_SNAPSHOT) >= 0;
    if (attempt.fence == null || snapshotPassed || !changes.lostTaskWrites()) {
      return;
    }
    Fence fence = taskFence();
    Workflow.newDetachedCancellationScope(() -> {
      Promise<Void> session = Async.procedure(stubs.restorer::undoLostTaskWrites, sessionId, attempt.errorMessage, fence);
      Promise<Void> leases = leasePassed ? Workflow.newPromise(null)
          : Async.procedure(stubs.revoker::revokeAttemptLeases, sessionId, fence);
      Promise.allOf(session, leases).get();
    }).run();
  }

  /**
   * A cancel is pending while the resume fails for another cause (it compensated as any failure):
   * Temporal ends the run CANCELED whatever it fails with (the Java SDK's doing), so the listing says
   * CANCELLED too; the failure's type stays in the Current Details and the failure. Runs from before
   * said FAILED, and keep doing so on replay.
   */
  private boolean lateCancel() {
    return CancellationScope.current().isCancelRequested() && changes.lateCancelOutcome();
  }

  private void listCancelled(FailedResume failed, String type) {
    narration.note("CANCELLED: the cancel arrived while the resume failed (" + type + ")");
    narration.endWith("**CANCELLED** as it failed " + failed.ending().replace("**FAILED** ", ""));
    narration.outcome("CANCELLED");
    metrics.count("CANCELLED", type);
    this.failed = null;
  }

  /**
   * A step that ended because the resume was cancelled: its failure is caused by the cancellation
   * (e.g. the launch stopped on the cancel), which Temporal ends CANCELED as it does a cancellation
   * itself, so the outcome says CANCELLED too. Runs from before said FAILED, and keep doing so on replay.
   */
  private boolean cancelledStep(TemporalFailure failure) {
    return CancellationScope.current().isCancelRequested() && causedByCancellation(failure) && changes.cancelOutcome();
  }

  private static boolean causedByCancellation(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof CanceledFailure) {
        return true;
      }
    }
    return false;
  }

  /**
   * The launch was cancelled before any worker took it: nothing ran, so there is nothing to stop,
   * and the compensation does not wait for a host that may be gone. Histories from before asked the
   * host to stop it anyway, and keep doing so on replay.
   */
  private boolean cancelledBeforeItStarted(TemporalFailure failure) {
    return WorkflowFailures.isCancelledBeforeStart(failure) && changes.unstartedLaunchCancel();
  }
}
