package dev.kandev.recovery.activities.runtime;

import dev.kandev.recovery.activities.redaction.Redaction;
import dev.kandev.recovery.activities.store.RuntimeJobStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.runtime.AgentRuntime;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import dev.kandev.recovery.workflows.runtime.ProbeInfo;
import dev.kandev.recovery.workflows.runtime.ProbeStep;
import dev.kandev.recovery.workflows.runtime.RepairOutcome;
import dev.kandev.recovery.workflows.runtime.RepairStep;
import dev.kandev.recovery.workflows.runtime.RuntimeJobSnapshot;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateActivities;
import dev.kandev.recovery.workflows.runtime.UpdateOutcome;
import dev.kandev.recovery.workflows.runtime.UpdateStep;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Temporal face of the npm runtime parts. Each step resolves the agent id in its own trusted
 * catalogue (a spec never arrives from outside) and reports failure as a non-retryable
 * ApplicationFailure with a stable type and a bounded message.
 */
public final class RuntimeUpdateActivitiesImpl implements RuntimeUpdateActivities {
  private static final Logger log = LoggerFactory.getLogger(RuntimeUpdateActivitiesImpl.class);

  private final BuiltInAgents catalogue;
  private final NpmSettings npm;
  private final CommandRunner runner;
  private final NpmCacheRoot cacheRoot;
  private final NpmLaunch launch;
  private final AcpProbe probe;
  private final Transactions transactions;
  private final RuntimeJobStore jobs;

  public RuntimeUpdateActivitiesImpl(BuiltInAgents catalogue, NpmSettings npm, CommandRunner runner, NpmLaunch launch,
      AcpProbe probe, Transactions transactions, RuntimeJobStore jobs) {
    this.catalogue = catalogue;
    this.npm = npm;
    this.runner = runner;
    this.cacheRoot = new NpmCacheRoot(npm, runner);
    this.launch = launch;
    this.probe = probe;
    this.transactions = transactions;
    this.jobs = jobs;
  }

  @Override
  public void saveJob(RuntimeJobSnapshot job) {
    agent(job.agentId());
    transactions.run("save runtime update job " + job.jobId(), h -> jobs.save(h, job));
  }

  @Override
  public UpdateOutcome runUpdate(UpdateStep step) {
    AgentRuntime agent = agent(step.agentId());
    CommandResult result;
    try {
      // npm echoes registry URLs, auth errors and its config: what enters history, logs and the job row is redacted.
      result = runner.run(npm.updateCommand(agent.packageSpec()), npm.environment(), npm.updateTimeout(), true)
          .redacted(Redaction.ofEnvironment(npm.environment()));
    } catch (RuntimeException e) {
      throw FailureType.RUNTIME_UPDATE_FAILED.failure(Redaction.ofEnvironment(npm.environment()).apply(e.getMessage()));
    }
    UpdateOutcome outcome = new UpdateOutcome(
        result.argv(), result.exitCode(), result.timedOut(), result.duration().toMillis(), result.stdout());
    log.info("runtime update attempt {} of {}: {}", step.attempt(), agent.agentId(),
        result.succeeded() ? "ok" : result.describe());
    if (!result.succeeded()) {
      throw FailureType.RUNTIME_UPDATE_FAILED.failure(result.describe(), outcome);
    }
    return outcome;
  }

  @Override
  public RepairOutcome repairExecutionCache(RepairStep step) {
    AgentRuntime agent = agent(step.agentId());
    try {
      Path root = cacheRoot.resolve();
      RepairOutcome outcome = NpxExecutionTree.invalidate(root, agent.packageSpec());
      log.info("runtime cache repair of {}: {} {}", agent.agentId(),
          outcome.removed() ? "removed" : "nothing to remove at", outcome.target());
      return outcome;
    } catch (CacheRepairException e) {
      log.warn("runtime cache repair of {} {}: {}", agent.agentId(), e.refused() ? "refused" : "failed", e.getMessage());
      throw (e.refused() ? FailureType.RUNTIME_CACHE_REPAIR_REFUSED : FailureType.RUNTIME_CACHE_REPAIR_FAILED)
          .failure(e.getMessage());
    }
  }

  /** Starts the agent the way a normal launch would ({@link NpmLaunch}), so it tests what users run. */
  @Override
  public ProbeInfo probeAcp(ProbeStep step) {
    AgentRuntime agent = agent(step.agentId());
    try {
      return probe.probe(launch.plan(agent).argv(), npm.environment(), npm.probeTimeout());
    } catch (AcpProbe.ProbeFailedException e) {
      throw FailureType.RUNTIME_PROBE_FAILED.failure(e.getMessage());
    }
  }

  private AgentRuntime agent(String agentId) {
    return catalogue.find(agentId).orElseThrow(() -> FailureType.RUNTIME_UNKNOWN_AGENT.failure(
        "unknown agent '" + agentId + "'"));
  }
}
