package dev.kandev.recovery.workflows.resume;

import static dev.kandev.recovery.workflows.RecoverySearchAttributes.AGENT_ID;
import static dev.kandev.recovery.workflows.RecoverySearchAttributes.OUTCOME;
import static dev.kandev.recovery.workflows.RecoverySearchAttributes.SESSION_ID;
import static dev.kandev.recovery.workflows.RecoverySearchAttributes.TASK_ID;

import dev.kandev.recovery.workflows.ExpectedFailures;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.HostWaitBounds;
import dev.kandev.recovery.workflows.InvalidRequest;
import dev.kandev.recovery.workflows.RecoveryIds;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.WorkflowFailures;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Saga;
import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowVersioningBehavior;
import io.temporal.workflow.WorkflowInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The resume saga: lock → read context → (fresh start: clear identity) → STARTING → lease →
 * snapshot → launch → settle → unlock. The transition and every step after it register their
 * compensation before they run (a step whose result was lost is compensated too), so a failure, a
 * timeout or a cancellation restores the prior recoverable state (unless a terminal transition won
 * the race), revokes the leases and stops a half-launched agent. Restoring is guarded by STARTING,
 * so compensating a transition that never applied changes nothing.
 *
 * <p>The launch and the agent's stop go to the queues of the session's executor host (see {@link
 * RecoveryTaskQueue}), so an agent starts only where its workspace lives; a host with no worker that
 * takes the launch within {@link HostWaitBounds} fails the resume with {@link FailureType#AGENT_HOST_UNAVAILABLE}.
 */
public class ResumeSessionWorkflowImpl implements ResumeSessionWorkflow {
  private static final Logger log = Workflow.getLogger(ResumeSessionWorkflowImpl.class);
  /** Version 1: the launch and the agent's stop go to the session's host queues (before: the shared queue). */
  static final String HOST_QUEUES = "host-queues";
  /** Version 1: the lock and session steps run as local activities (before: activities). */
  static final String LOCAL_STORE_STEPS = "local-store-steps";
  /** Version 1: the request's {@code hostWait} chooses the launch's host wait (before: its reason). */
  static final String HOST_WAIT_FIELD = "host-wait-field";
  /** Version 1: a resume refused before it changed anything is FAILED too (before: REJECTED), one name per outcome. */
  static final String ONE_FAILED_OUTCOME = "one-failed-outcome";
  /** Version 1: the credential lease runs as a local activity, issued once per attempt (before: an activity). */
  static final String LOCAL_CREDENTIAL_LEASE = "local-credential-lease";
  /** Version 1: a launch cancelled before a worker took it is not stopped (before: its host was asked to stop it). */
  static final String UNSTARTED_LAUNCH_CANCEL = "unstarted-launch-cancel";

  private final ResumeLockActivities locks = Workflow.newActivityStub(ResumeLockActivities.class, ResumeActivityOptions.STORE);
  private final SessionActivities sessions = Workflow.newActivityStub(SessionActivities.class, ResumeActivityOptions.STORE);
  private final CredentialActivities credentials =
      Workflow.newActivityStub(CredentialActivities.class, ResumeActivityOptions.CREDENTIALS);
  private final CredentialActivities localCredentials =
      Workflow.newLocalActivityStub(CredentialActivities.class, ResumeActivityOptions.CREDENTIALS_LOCAL);
  private final AgentActivities launcher = Workflow.newActivityStub(AgentActivities.class, ResumeActivityOptions.LAUNCH);
  private final StoreSteps localStoreSteps = new StoreSteps(
      Workflow.newLocalActivityStub(ResumeLockActivities.class, ResumeActivityOptions.STORE_LOCAL),
      Workflow.newLocalActivityStub(SessionActivities.class, ResumeActivityOptions.STORE_LOCAL),
      Workflow.newLocalActivityStub(ResumeLockActivities.class, ResumeActivityOptions.UNLOCK_LOCAL));
  // The same activities as compensations (and the lock release): they retry until they are done.
  private final ResumeLockActivities unlocker =
      Workflow.newActivityStub(ResumeLockActivities.class, ResumeActivityOptions.COMPENSATION);
  private final SessionActivities restorer =
      Workflow.newActivityStub(SessionActivities.class, ResumeActivityOptions.COMPENSATION);
  private final CredentialActivities revoker =
      Workflow.newActivityStub(CredentialActivities.class, ResumeActivityOptions.COMPENSATION);
  private final AgentActivities stopper = Workflow.newActivityStub(AgentActivities.class, ResumeActivityOptions.COMPENSATION);

  private final Duration hostWait;
  private final List<String> lines = new ArrayList<>();
  private ResumeRequest request;
  private ResumeStep step = ResumeStep.ACQUIRE_LOCK;
  private long startedAtMillis;
  /** The Web UI's Current Details once the resume ended: its outcome, never just DONE. */
  private String ending = "";

  /** Launches wait for a worker of their host at most {@link HostWaitBounds#DEFAULT}. */
  public ResumeSessionWorkflowImpl() {
    this(HostWaitBounds.DEFAULT);
  }

  /** @param hostWait how long a launch waits for a worker of its host (see {@link HostWaitBounds}) */
  public ResumeSessionWorkflowImpl(Duration hostWait) {
    this.hostWait = HostWaitBounds.validated(hostWait);
  }

  @Override
  public ResumeResult resume(ResumeRequest request) {
    this.startedAtMillis = Workflow.currentTimeMillis();
    if (request == null) {
      throw invalid("a resume needs an input with a sessionId; the payload was null or missing");
    }
    this.request = request;
    String sessionId = request.sessionId();
    RecoveryIds.problem("sessionId", sessionId).ifPresent(problem -> {
      throw invalid(problem);
    });
    Workflow.upsertTypedSearchAttributes(SESSION_ID.valueSet(sessionId));
    WorkflowInfo info = Workflow.getInfo();
    String owner = ResumeLockOwner.of(info.getWorkflowId(), info.getRunId());
    Saga saga = new Saga(new Saga.Options.Builder().setContinueWithError(true).build());
    Attempt attempt = new Attempt();
    StoreSteps store = storeSteps();
    try {
      enter(ResumeStep.ACQUIRE_LOCK, "resume lock for " + sessionId);
      attempt.fence = store.locks().acquireResumeLock(sessionId, owner);

      enter(ResumeStep.READ_CONTEXT, "session, stored token, agent and credential policy");
      ResumeContext context = store.sessions().readResumeContext(sessionId, request.mode(), attempt.fence);
      attempt.context = context;
      describe(context);
      HostAgents agents = agentsOf(context);

      if (request.mode() == ResumeMode.START_FRESH) {
        enter(ResumeStep.CLEAR_IDENTITY, "user chose Start fresh: clearing the stored provider session");
        sessions.clearIdentityForFreshStart(sessionId, attempt.fence);
        attempt.identityCleared = true;
      }

      enter(ResumeStep.MARK_STARTING, context.priorState() + " -> STARTING");
      saga.addCompensation(() -> attempt.restoredState =
          restorer.restorePriorState(sessionId, context.priorState(), attempt.errorMessage, attempt.fence));
      store.sessions().markStarting(sessionId, context.priorState(), request.reason(), attempt.fence);

      enter(ResumeStep.ISSUE_CREDENTIAL_LEASE, "scoped git credential lease");
      saga.addCompensation(revoker::revokeCredentialLeases, sessionId);
      CredentialLease lease = issueLease(sessionId, attempt.fence);

      enter(ResumeStep.PERSIST_CREDENTIAL_SNAPSHOT, lease.describe());
      saga.addCompensation(restorer::restoreCredentialSnapshot, sessionId, context.previousSnapshot(), attempt.fence);
      store.sessions().persistCredentialSnapshot(sessionId, lease.snapshot(), attempt.fence);

      enter(ResumeStep.LAUNCH_AGENT, attempt.hasToken() ? "session/load " + context.resumeToken() : "session/new");
      attempt.agents = agents;
      saga.addCompensation(() -> stopAgent(sessionId, attempt));
      LaunchOutcome launched = agents.launcher().launchAgent(sessionId, lease.leaseIds(), attempt.fence);

      enter(ResumeStep.SETTLE_SESSION, "agent " + launched.agentName() + " pid " + launched.pid() + agents.where());
      SessionState finalState = store.sessions().settleSession(sessionId, attempt.fence);
      attempt.settled = true;

      ResumeOutcome outcome = launched.loaded() ? ResumeOutcome.RESUMED : ResumeOutcome.STARTED_FRESH;
      Workflow.upsertTypedSearchAttributes(OUTCOME.valueSet(outcome.name()));
      count(outcome.name(), "none");
      note(outcome + ": provider session " + launched.providerSessionId() + ", session " + finalState);
      ending = "**" + outcome + "** provider session " + launched.providerSessionId() + ", session " + finalState;
      return new ResumeResult(sessionId, context.taskId(), outcome, finalState, launched.providerSessionId(), launched.loaded());
    } catch (ActivityFailure | CanceledFailure failure) {
      ResumeStep failedStep = step;
      boolean noHostWorker = failedStep == ResumeStep.LAUNCH_AGENT && WorkflowFailures.isScheduleToStartTimeout(failure);
      attempt.launchNeverStarted = noHostWorker || (failedStep == ResumeStep.LAUNCH_AGENT && cancelledBeforeItStarted(failure));
      String type = noHostWorker ? FailureType.AGENT_HOST_UNAVAILABLE.type() : WorkflowFailures.type(failure);
      String cause = noHostWorker
          ? "no worker of host " + attempt.agents.host() + " took the launch within " + attempt.agents.hostWait().toSeconds()
              + " s (the host's worker is down, or busy with more launches than its cap); nothing was launched"
          : WorkflowFailures.message(failure);
      attempt.errorMessage = "resume failed at " + failedStep + " (" + type + "): " + attempt.lostConversation() + cause;
      note(attempt.errorMessage);
      if (attempt.context != null) {
        enter(ResumeStep.COMPENSATE, "restoring the prior state");
        Workflow.newDetachedCancellationScope(saga::compensate).run();
      }
      if (failure instanceof CanceledFailure) {
        ending = "**CANCELLED** at " + failedStep + ": the prior state restored";
        Workflow.upsertTypedSearchAttributes(OUTCOME.valueSet("CANCELLED"));
        count("CANCELLED", type);
        throw failure;
      }
      throw failed(failedStep, type, attempt, failure);
    } finally {
      // Also when the acquisition failed: its result may have been lost after the lock was taken.
      // Releasing by owner never touches someone else's lock.
      enter(ResumeStep.RELEASE_LOCK, "");
      ResumeLockActivities releaser = attempt.settled ? store.unlocker() : unlocker;
      Workflow.newDetachedCancellationScope(() -> releaser.releaseResumeLock(sessionId, owner)).run();
      step = ResumeStep.DONE;
      Workflow.setCurrentDetails(ending.isEmpty() ? "**" + ResumeStep.DONE + "**" : ending);
    }
  }

  @Override
  public ResumeProgress progress() {
    return new ResumeProgress(request == null ? null : request.sessionId(), request == null ? null : request.mode(), step, List.copyOf(lines));
  }

  /**
   * Where the store steps run. As local activities they run in the workflow task that reaches them,
   * so a resume takes 3 workflow tasks and 2 activities (the lease and the launch) instead of 9 and 8
   * (2 and 1 since the lease is local too, {@link #issueLease}).
   * A local activity's result is recorded only when its workflow task completes: if the worker dies
   * before that, the next worker runs the step again, so each must recognise its own earlier run —
   * the lock (same owner, same fence), the context (a session this resume moved to STARTING is read
   * with the state it left), STARTING, the snapshot and the settle (their own applied writes, by the
   * fence of the resume that last moved the session to STARTING), the release (by owner). The lock is
   * released locally only after a settle: a failed resume releases it with the compensations' retries.
   */
  private StoreSteps storeSteps() {
    return Workflow.getVersion(LOCAL_STORE_STEPS, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION
        ? new StoreSteps(locks, sessions, unlocker)
        : localStoreSteps;
  }

  /**
   * The session's credential lease. As a local activity it runs in the workflow task that reaches it,
   * with the snapshot after it, so a resume takes 2 workflow tasks and 1 activity (the launch). Its
   * re-run after a lost workflow task is recognised by the attempt's fence: it returns the leases it
   * issued before (while usable) instead of a second set. Histories from before ran it as an activity.
   */
  private CredentialLease issueLease(String sessionId, Fence fence) {
    if (Workflow.getVersion(LOCAL_CREDENTIAL_LEASE, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION) {
      return credentials.issueCredentialLease(sessionId);
    }
    return localCredentials.issueCredentialLeaseForAttempt(sessionId, fence);
  }

  /** The lock and session steps of a resume, and the release after a settle. */
  private record StoreSteps(ResumeLockActivities locks, SessionActivities sessions, ResumeLockActivities unlocker) {}

  /**
   * The launcher and stopper of the session's agent: on its host's queues, or on the shared queue for
   * histories from before hosts had queues (and a context from an activity that predates them).
   */
  private HostAgents agentsOf(ResumeContext context) {
    int version = Workflow.getVersion(HOST_QUEUES, Workflow.DEFAULT_VERSION, 1);
    String host = context.executorHost();
    if (version == Workflow.DEFAULT_VERSION || host == null || host.isEmpty()) {
      return new HostAgents("", hostWait, launcher, stopper);
    }
    String queue = Workflow.getInfo().getTaskQueue();
    Duration wait = restartRecoveryWait() ? HostWaitBounds.RESTART_RECOVERY : hostWait;
    return new HostAgents(host, wait,
        Workflow.newActivityStub(AgentActivities.class,
            ResumeActivityOptions.launchOn(RecoveryTaskQueue.launchesOf(queue, host), wait)),
        Workflow.newActivityStub(AgentActivities.class,
            ResumeActivityOptions.stopOn(RecoveryTaskQueue.ofHost(queue, host), wait)));
  }

  /**
   * Whether the launch waits {@link HostWaitBounds#RESTART_RECOVERY}: the request says so. Runs started
   * before the request had {@code hostWait} chose it by their reason, and keep doing so on replay.
   */
  private boolean restartRecoveryWait() {
    if (Workflow.getVersion(HOST_WAIT_FIELD, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION) {
      return ResumeRequest.RESTART_RECOVERY.equals(request.reason());
    }
    return request.hostWait() == RequestedHostWait.RESTART_RECOVERY;
  }

  /** Where the session's agent is launched and stopped; {@code host} is empty for the shared queue. */
  private record HostAgents(String host, Duration hostWait, AgentActivities launcher, AgentActivities stopper) {
    String where() {
      return host.isEmpty() ? "" : " on host " + host;
    }
  }

  /**
   * Compensation of the launch: stops the agent on its host. Nothing to stop if no worker ever took
   * the launch. If the host's worker does not take the stop in time either, the host is gone and its
   * agents with it: the stop on the shared queue still withdraws the launch (the host's worker, if it
   * comes back, stops what it finds unowned).
   */
  private void stopAgent(String sessionId, Attempt attempt) {
    if (attempt.launchNeverStarted) {
      return;
    }
    try {
      attempt.agents.stopper().stopAgent(sessionId);
    } catch (ActivityFailure failure) {
      if (!WorkflowFailures.isScheduleToStartTimeout(failure)) {
        throw failure;
      }
      note("COMPENSATE: host " + attempt.agents.host() + " did not take the stop; withdrawing the launch");
      stopper.stopAgent(sessionId);
    }
  }

  /**
   * The launch was cancelled before any worker took it: nothing ran, so there is nothing to stop,
   * and the compensation does not wait for a host that may be gone. Histories from before asked the
   * host to stop it anyway, and keep doing so on replay.
   */
  private static boolean cancelledBeforeItStarted(TemporalFailure failure) {
    return WorkflowFailures.isCancelledBeforeStart(failure)
        && Workflow.getVersion(UNSTARTED_LAUNCH_CANCEL, Workflow.DEFAULT_VERSION, 1) != Workflow.DEFAULT_VERSION;
  }

  /** What one attempt learned; compensations read it when they run. */
  private static final class Attempt {
    Fence fence;
    HostAgents agents;
    boolean launchNeverStarted;
    ResumeContext context;
    String errorMessage = "";
    SessionState restoredState;
    boolean identityCleared;
    boolean settled;

    /** Said first in the failure of a Start fresh that cleared a stored conversation: it is gone for good. */
    String lostConversation() {
      return identityCleared && !context.resumeToken().isEmpty()
          ? "Start fresh cleared the stored conversation (provider session " + context.resumeToken()
              + "), which can no longer be resumed; "
          : "";
    }

    /** Resume needs a stored provider session; once cleared (or if never made) only Start fresh is left. */
    boolean hasToken() {
      return context != null && !context.resumeToken().isEmpty() && !identityCleared;
    }
  }

  private ApplicationFailure failed(ResumeStep failedStep, String type, Attempt attempt, TemporalFailure cause) {
    boolean changedNothing = attempt.context == null;
    // Deleted while the resume ran: no state to report and nothing left to resume.
    boolean sessionGone = !changedNothing && FailureType.SESSION_NOT_FOUND.type().equals(type);
    // Histories from before one name per outcome said REJECTED for a resume that changed nothing.
    ResumeOutcome outcome = changedNothing
        && Workflow.getVersion(ONE_FAILED_OUTCOME, Workflow.DEFAULT_VERSION, 1) == Workflow.DEFAULT_VERSION
        ? ResumeOutcome.REJECTED : ResumeOutcome.FAILED;
    Workflow.upsertTypedSearchAttributes(OUTCOME.valueSet(outcome.name()));
    count(outcome.name(), type);
    SessionState state = sessionGone ? null : attempt.restoredState != null ? attempt.restoredState
        : attempt.context != null ? attempt.context.priorState() : null;
    List<ResumeMode> actions = changedNothing || sessionGone ? List.of()
        : attempt.hasToken() ? List.of(ResumeMode.RESUME, ResumeMode.START_FRESH) : List.of(ResumeMode.START_FRESH);
    ResumeFailure details = new ResumeFailure(request.sessionId(), failedStep, type, attempt.errorMessage, state, actions);
    // The whole story in the failure's message: the Web UI shows it first, above the details.
    String message = attempt.errorMessage + (changedNothing ? "; nothing was changed"
        : sessionGone ? "; the session no longer exists"
        : "; session now " + state + "; recovery actions: "
            + (actions.isEmpty() ? "none" : String.join(", ", actions.stream().map(Enum::name).toList())));
    ending = "**FAILED** at " + failedStep + " (" + type + "): "
        + (changedNothing ? "nothing was changed" : sessionGone ? "the session no longer exists" : "session now " + state);
    log.warn("{}", message);
    return ExpectedFailures.nonRetryableWithCause(message, type, cause, details);
  }

  /** Refused before anything ran: one log line, counted, and the failure to throw. */
  private ApplicationFailure invalid(String reason) {
    ApplicationFailure failure = InvalidRequest.failure(reason);
    log.warn("resume rejected ({}): {}", FailureType.INVALID_REQUEST, failure.getOriginalMessage());
    count(ResumeOutcome.FAILED.name(), FailureType.INVALID_REQUEST.type());
    return failure;
  }

  /**
   * {@code kandev_resumes{outcome, failure_type}} and {@code kandev_resume_duration{outcome}} (workflow
   * time); Temporal's metrics scope emits them once, never on replay, and issues no command.
   */
  private void count(String outcome, String failureType) {
    Workflow.getMetricsScope().tagged(Map.of("outcome", outcome, "failure_type", failureType))
        .counter("kandev_resumes").inc(1);
    Workflow.getMetricsScope().tagged(Map.of("outcome", outcome)).timer("kandev_resume_duration")
        .record(com.uber.m3.util.Duration.ofMillis(Workflow.currentTimeMillis() - startedAtMillis));
  }

  private void describe(ResumeContext context) {
    Workflow.upsertTypedSearchAttributes(TASK_ID.valueSet(context.taskId()), AGENT_ID.valueSet(context.agentId()));
    String summary = (request.mode() == ResumeMode.START_FRESH ? "Start fresh" : "Resume")
        + " of session " + context.sessionId() + " (task " + context.taskId() + ", agent " + context.agentId()
        + ") from " + context.priorState() + ", reason " + request.reason()
        + (request.requestedBy().isEmpty() ? "" : ", requested by " + request.requestedBy());
    Workflow.upsertMemo(Map.of("summary", summary));
    note(summary);
  }

  private void enter(ResumeStep next, String detail) {
    step = next;
    if (!detail.isEmpty()) {
      note(next + ": " + detail);
    }
    Workflow.setCurrentDetails("**" + next + "** " + detail);
  }

  private void note(String line) {
    lines.add(line);
  }

  /**
   * The resume as versioned workers run it: pinned, a resume completes on the version it started on
   * (docs/decisions/0002). Only for them: the server refuses a versioning behaviour from an
   * unversioned worker's workflow task.
   */
  public static final class Pinned extends ResumeSessionWorkflowImpl {
    public Pinned(Duration hostWait) {
      super(hostWait);
    }

    @Override
    @WorkflowVersioningBehavior(VersioningBehavior.PINNED)
    public ResumeResult resume(ResumeRequest request) {
      return super.resume(request);
    }
  }
}
