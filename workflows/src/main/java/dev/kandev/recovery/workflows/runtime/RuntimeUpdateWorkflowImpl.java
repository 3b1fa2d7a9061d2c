package dev.kandev.recovery.workflows.runtime;

import dev.kandev.recovery.workflows.ExpectedFailures;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.HostWaitBounds;
import dev.kandev.recovery.workflows.InvalidRequest;
import dev.kandev.recovery.workflows.RecoveryIds;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.WorkflowFailures;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;

/**
 * The runtime update job. Retry rules live here and only here: the npm steps run with {@code
 * maximumAttempts = 1}, the one repair and the one retry are separate activities in history, and
 * any failure after the first update failure is terminal.
 */
public class RuntimeUpdateWorkflowImpl implements RuntimeUpdateWorkflow {
  static final int MAX_PROGRESS_LINES = 200;
  static final int MAX_ERROR_CHARS = 2000;
  private static final int TAIL_LINES_IN_PROGRESS = 20;
  /** Version 1: KandevAgentId upserted by the workflow, KandevOutcome also for an unknown agent. */
  static final String OWN_SEARCH_ATTRIBUTES = "own-search-attributes";
  private static final Logger log = Workflow.getLogger(RuntimeUpdateWorkflowImpl.class);

  private final BuiltInAgents catalogue;
  private final Duration hostWait;
  /** The queue of the npm steps: the requested host's, or null for the shared queue. */
  private String stepQueue;
  private final List<String> lines = new ArrayList<>();
  private String jobId = "";
  private String agentId = "";
  private RuntimeJobStatus status = RuntimeJobStatus.QUEUED;
  private int attempts;
  private boolean repaired;
  private RepairResult repair = RepairResult.NOT_RUN;
  private String error = "";

  /** @param hostWait how long an npm step waits for a worker of the requested host */
  public RuntimeUpdateWorkflowImpl(BuiltInAgents catalogue, Duration hostWait) {
    this.catalogue = catalogue;
    this.hostWait = HostWaitBounds.validated(hostWait);
  }

  private final RuntimeUpdateActivities store =
      Workflow.newActivityStub(RuntimeUpdateActivities.class, RuntimeUpdateActivityOptions.STORE);

  @Override
  public RuntimeUpdateResult update(RuntimeUpdateRequest request) {
    jobId = Workflow.getInfo().getRunId();
    if (request == null) {
      throw invalid("a runtime update needs an input with an agentId; the payload was null or missing");
    }
    RecoveryIds.problem("agentId", request.agentId()).ifPresent(problem -> {
      throw invalid(problem);
    });
    agentId = request.agentId();
    if (!request.host().isEmpty()) {
      RecoveryIds.problem("host", request.host()).ifPresent(problem -> {
        throw invalid(problem);
      });
      stepQueue = RecoveryTaskQueue.ofHost(Workflow.getInfo().getTaskQueue(), request.host());
    }
    // The workflow sets its own search attributes (a starter in another SDK sets none); histories
    // recorded before had no such commands.
    boolean ownSearchAttributes =
        Workflow.getVersion(OWN_SEARCH_ATTRIBUTES, Workflow.DEFAULT_VERSION, 1) >= 1;
    if (ownSearchAttributes) {
      Workflow.upsertTypedSearchAttributes(RecoverySearchAttributes.AGENT_ID.valueSet(agentId));
    }
    AgentRuntime agent = catalogue.find(agentId).orElse(null);
    if (agent == null) {
      // Rejected before anything runs: no activity, no job record.
      error = bound("unknown agent '" + agentId + "'; built-in agents: " + String.join(", ", catalogue.ids()));
      status = RuntimeJobStatus.FAILED;
      line("failed: " + error);
      if (ownSearchAttributes) {
        outcome("failed");
      }
      log.warn("runtime update rejected ({}): {}", FailureType.RUNTIME_UNKNOWN_AGENT, error);
      count("rejected");
      throw FailureType.RUNTIME_UNKNOWN_AGENT.failure(error,
          new RuntimeUpdateResult(jobId, agentId, "", RuntimeUpdateStatus.FAILED, 0, false, repair, lines, error,
              FailureType.RUNTIME_UNKNOWN_AGENT.type(), null));
    }
    line("runtime update of " + agent.agentId() + " (" + agent.packageSpec() + ") requested by " + request.requestedBy()
        + (request.host().isEmpty() ? "" : " on host " + request.host()));
    save(agent, request);

    status = RuntimeJobStatus.UPDATING;
    line("updating " + agent.packageSpec());
    save(agent, request);
    ActivityFailure firstFailure = runUpdate(agent, request, 1, "update " + agent.packageSpec());
    if (firstFailure != null) {
      line("managed runtime cache appears stale; repairing execution cache");
      status = RuntimeJobStatus.REPAIRING;
      save(agent, request);
      try {
        RepairOutcome outcome =
            stub(RuntimeStepTimeouts.REPAIR, "repair _npx tree of " + agent.packageSpec())
                .repairExecutionCache(new RepairStep(jobId, agent.agentId()));
        repaired = outcome.removed();
        repair = outcome.removed() ? RepairResult.REMOVED : RepairResult.NOTHING_TO_REMOVE;
        line(outcome.removed() ? "removed " + outcome.target() : "nothing to remove at " + outcome.target());
        countRepair();
      } catch (ActivityFailure e) {
        requireHost(e, agent, request);
        repair = refused(e) ? RepairResult.REFUSED : RepairResult.FAILED;
        countRepair();
        throw terminal(agent, request, "repair runtime execution cache: " + message(e),
            FailureType.RUNTIME_CACHE_REPAIR_FAILED, e);
      }
      line("retrying managed runtime update");
      status = RuntimeJobStatus.RETRYING;
      save(agent, request);
      ActivityFailure secondFailure = runUpdate(agent, request, 2, "retry update " + agent.packageSpec() + " after repair");
      if (secondFailure != null) {
        throw terminal(agent, request, "update runtime after cache repair: " + message(secondFailure),
            FailureType.RUNTIME_UPDATE_FAILED, secondFailure);
      }
    }

    status = RuntimeJobStatus.PROBING;
    line("probing ACP initialize");
    save(agent, request);
    ProbeInfo probe;
    try {
      probe = stub(RuntimeStepTimeouts.PROBE, "ACP initialize probe of " + agent.agentId())
          .probeAcp(new ProbeStep(jobId, agent.agentId()));
    } catch (ActivityFailure e) {
      requireHost(e, agent, request);
      throw terminal(agent, request, "ACP capability probe: " + message(e), FailureType.RUNTIME_PROBE_FAILED, e);
    }
    line("ACP initialize ok: " + probe.agentName() + " " + probe.agentVersion()
        + ", protocol version " + probe.protocolVersion());
    status = RuntimeJobStatus.SUCCEEDED;
    line("succeeded");
    save(agent, request);
    outcome("succeeded");
    count("succeeded");
    return result(agent, RuntimeUpdateStatus.SUCCEEDED, "", probe);
  }

  @Override
  public RuntimeUpdateProgress progress() {
    return new RuntimeUpdateProgress(jobId, agentId, status, attempts, repaired, repair, lines, error);
  }

  /** Runs the update once; returns its failure, or null if it succeeded. */
  private ActivityFailure runUpdate(AgentRuntime agent, RuntimeUpdateRequest request, int attempt, String summary) {
    attempts = attempt;
    try {
      UpdateOutcome outcome = stub(RuntimeStepTimeouts.UPDATE, summary).runUpdate(new UpdateStep(jobId, agent.agentId(), attempt));
      tail(outcome.outputTail());
      line("update attempt " + attempt + " succeeded");
      return null;
    } catch (ActivityFailure e) {
      requireHost(e, agent, request);
      if (e.getCause() instanceof ApplicationFailure failure && failure.getDetails().getSize() > 0) {
        tail(failure.getDetails().get(UpdateOutcome.class).outputTail());
      }
      line("update attempt " + attempt + " failed: " + message(e));
      log.warn("runtime update attempt {} of {} failed: {}", attempt, agent.agentId(), message(e));
      return e;
    }
  }

  /** A request refused before anything ran: no activity, no job record. */
  private ApplicationFailure invalid(String reason) {
    ApplicationFailure failure = InvalidRequest.failure(reason);
    error = failure.getOriginalMessage();
    status = RuntimeJobStatus.FAILED;
    line("failed: " + error);
    log.warn("runtime update rejected ({}): {}", FailureType.INVALID_REQUEST, error);
    count("rejected");
    return failure;
  }

  /**
   * Records the job as failed; the caller throws the returned failure, which fails the workflow. It
   * is benign (logged in one line) when the step's failure was an expected one.
   */
  private ApplicationFailure terminal(
      AgentRuntime agent, RuntimeUpdateRequest request, String message, FailureType type, ActivityFailure after) {
    error = bound(message);
    status = RuntimeJobStatus.FAILED;
    line("failed: " + error);
    save(agent, request);
    outcome("failed");
    count("failed");
    log.warn("runtime update of {} failed ({}): {}", agent.agentId(), type, error);
    return ExpectedFailures.nonRetryableAfter(
        after, error, type.type(), result(agent, RuntimeUpdateStatus.FAILED, type.type(), null));
  }

  private RuntimeUpdateResult result(AgentRuntime agent, RuntimeUpdateStatus outcome, String type, ProbeInfo probe) {
    return new RuntimeUpdateResult(
        jobId, agent.agentId(), agent.packageSpec(), outcome, attempts, repaired, repair, lines, error, type, probe);
  }

  private void save(AgentRuntime agent, RuntimeUpdateRequest request) {
    store.saveJob(new RuntimeJobSnapshot(
        jobId, Workflow.getInfo().getWorkflowId(), agent.agentId(), agent.packageSpec(), request.requestedBy(),
        status, attempts, repaired, lines, error));
  }

  private void outcome(String value) {
    Workflow.upsertTypedSearchAttributes(RecoverySearchAttributes.OUTCOME.valueSet(value));
  }

  /** {@code kandev_runtime_repairs{result}}: what a cache repair did (REMOVED, NOTHING_TO_REMOVE, REFUSED, FAILED). */
  private void countRepair() {
    Workflow.getMetricsScope().tagged(Map.of("result", repair.name())).counter("kandev_runtime_repairs").inc(1);
  }

  /**
   * {@code kandev_runtime_updates{outcome, repair}} (rejected: refused before anything ran, an
   * unknown agent or an invalid request): emitted once, never on replay, no command.
   */
  private void count(String outcome) {
    Workflow.getMetricsScope().tagged(Map.of("outcome", outcome, "repair", repair.name()))
        .counter("kandev_runtime_updates").inc(1);
  }

  private RuntimeUpdateActivities stub(Duration startToClose, String summary) {
    ActivityOptions options = stepQueue == null
        ? RuntimeUpdateActivityOptions.step(startToClose, summary)
        : RuntimeUpdateActivityOptions.stepOn(stepQueue, hostWait, startToClose, summary);
    return Workflow.newActivityStub(RuntimeUpdateActivities.class, options);
  }

  /** A step no worker of the requested host took in time ends the job: nothing ran there. */
  private void requireHost(ActivityFailure e, AgentRuntime agent, RuntimeUpdateRequest request) {
    if (WorkflowFailures.isScheduleToStartTimeout(e)) {
      throw terminal(agent, request, "no worker of host " + request.host() + " took the step within "
          + hostWait.toSeconds() + " s (the host's worker is down)", FailureType.AGENT_HOST_UNAVAILABLE, e);
    }
  }

  private void tail(List<String> output) {
    int from = Math.max(0, output.size() - TAIL_LINES_IN_PROGRESS);
    output.subList(from, output.size()).forEach(l -> line("  | " + l));
  }

  private void line(String text) {
    if (lines.size() == MAX_PROGRESS_LINES - 1) {
      lines.add("… further progress lines omitted");
    }
    if (lines.size() < MAX_PROGRESS_LINES) {
      lines.add(bound(text));
    }
  }

  private static boolean refused(ActivityFailure e) {
    return e.getCause() instanceof ApplicationFailure failure
        && FailureType.RUNTIME_CACHE_REPAIR_REFUSED.is(failure);
  }

  private static String message(ActivityFailure e) {
    Throwable cause = WorkflowFailures.cause(e);
    String text = cause instanceof ApplicationFailure app ? app.getOriginalMessage() : cause.getMessage();
    return text == null ? cause.getClass().getSimpleName() : text;
  }

  private static String bound(String text) {
    return text.length() <= MAX_ERROR_CHARS ? text : text.substring(0, MAX_ERROR_CHARS - 1) + "…";
  }

  /**
   * The runtime update as versioned workers run it: auto-upgrade, a job moves to the current
   * version, so its changes stay behind getVersion (docs/decisions/0002). Only for them: the server
   * refuses a versioning behaviour from an unversioned worker's workflow task.
   */
  public static final class AutoUpgrade extends RuntimeUpdateWorkflowImpl {
    public AutoUpgrade(BuiltInAgents catalogue, Duration hostWait) {
      super(catalogue, hostWait);
    }

    @Override
    @WorkflowVersioningBehavior(VersioningBehavior.AUTO_UPGRADE)
    public RuntimeUpdateResult update(RuntimeUpdateRequest request) {
      return super.update(request);
    }
  }
}
