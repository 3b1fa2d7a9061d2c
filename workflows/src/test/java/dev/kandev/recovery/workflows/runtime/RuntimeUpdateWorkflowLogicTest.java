package dev.kandev.recovery.workflows.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.HostWaitBounds;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.client.RuntimeUpdateClient;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The retry rules with scripted activities (no npm): which steps run, how often, and what the job
 * reports. The real-npm scenarios are in the worker's RuntimeUpdateWorkflowTest.
 */
class RuntimeUpdateWorkflowLogicTest {
  private static final String QUEUE = "runtime-logic";

  private TestWorkflowEnvironment env;
  private ScriptedActivities activities;
  private RuntimeUpdateClient updates;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    RecoverySearchAttributes.ALL.forEach(
        key -> env.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationFactory(
        RuntimeUpdateWorkflow.class, () -> new RuntimeUpdateWorkflowImpl(TestAgents.CATALOGUE, HostWaitBounds.DEFAULT));
    activities = new ScriptedActivities();
    worker.registerActivitiesImplementations(activities);
    env.start();
    updates = new RuntimeUpdateClient(env.getWorkflowClient(), QUEUE);
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private RuntimeUpdateResult run(String agentId) throws Exception {
    return updates.start(agentId, "test").await(Duration.ofSeconds(30));
  }

  @Test
  void aSuccessfulFirstUpdateNeverRepairs() throws Exception {
    activities.updates.add(true);

    RuntimeUpdateResult result = run("opencode-acp");

    assertThat(result.status()).isEqualTo(RuntimeUpdateStatus.SUCCEEDED);
    assertThat(activities.calls).containsExactly("update:1", "probe");
    assertThat(result.packageSpec()).isEqualTo("opencode-ai");
    assertThat(result.repair()).isEqualTo(RepairResult.NOT_RUN);
    assertThat(activities.saved.get(activities.saved.size() - 1).status()).isEqualTo(RuntimeJobStatus.SUCCEEDED);
  }

  @Test
  void aFailedFirstUpdateIsRepairedOnceAndRetriedOnce() throws Exception {
    activities.updates.addAll(List.of(false, true));

    RuntimeUpdateResult result = run("opencode-acp");

    assertThat(result.status()).isEqualTo(RuntimeUpdateStatus.SUCCEEDED);
    assertThat(activities.calls).containsExactly("update:1", "repair", "update:2", "probe");
    assertThat(activities.saved).extracting(RuntimeJobSnapshot::status).containsExactly(
        RuntimeJobStatus.QUEUED, RuntimeJobStatus.UPDATING, RuntimeJobStatus.REPAIRING, RuntimeJobStatus.RETRYING,
        RuntimeJobStatus.PROBING, RuntimeJobStatus.SUCCEEDED);
    assertThat(result.progress()).contains("  | npm error code EJSONPARSE");
    assertThat(result.repaired()).isTrue();
    assertThat(result.repair()).isEqualTo(RepairResult.REMOVED);
  }

  @Test
  void aRepairThatFoundNothingIsReportedAsSuchNotAsRepaired() throws Exception {
    activities.updates.addAll(List.of(false, true));
    activities.treeExists = false;

    RuntimeUpdateResult result = run("opencode-acp");

    assertThat(result.status()).isEqualTo(RuntimeUpdateStatus.SUCCEEDED);
    assertThat(result.repaired()).isFalse();
    assertThat(result.repair()).isEqualTo(RepairResult.NOTHING_TO_REMOVE);
    assertThat(result.progress()).contains("nothing to remove at /cache/_npx/e2094862b59aac7b");
    assertThat(activities.saved.get(activities.saved.size() - 1).repaired()).isFalse();
  }

  @Test
  void aRefusedRepairIsReportedAsRefusedNotAsRepaired() throws Exception {
    activities.updates.addAll(List.of(false, true));
    activities.repairFailure = FailureType.RUNTIME_CACHE_REPAIR_REFUSED.type();

    RuntimeUpdateClient.Job job = updates.start("opencode-acp", "test");
    RuntimeUpdateResult result = job.await(Duration.ofSeconds(30));

    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_CACHE_REPAIR_FAILED.type());
    assertThat(result.repaired()).isFalse();
    assertThat(result.repair()).isEqualTo(RepairResult.REFUSED);
    assertThat(job.progress().repair()).isEqualTo(RepairResult.REFUSED);
    assertThat(job.progress().repaired()).isFalse();
  }

  @Test
  void aFailedRetryIsTerminalWithoutAThirdAttempt() throws Exception {
    activities.updates.addAll(List.of(false, false, true));

    RuntimeUpdateResult result = run("opencode-acp");

    assertThat(result.status()).isEqualTo(RuntimeUpdateStatus.FAILED);
    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_UPDATE_FAILED.type());
    assertThat(activities.calls).containsExactly("update:1", "repair", "update:2");
    assertThat(activities.saved.get(activities.saved.size() - 1))
        .extracting(RuntimeJobSnapshot::status, RuntimeJobSnapshot::attempts, RuntimeJobSnapshot::repaired)
        .containsExactly(RuntimeJobStatus.FAILED, 2, true);
  }

  @Test
  void aFailedRepairIsTerminalWithoutARetry() throws Exception {
    activities.updates.addAll(List.of(false, true));
    activities.repairFailure = FailureType.RUNTIME_CACHE_REPAIR_FAILED.type();

    RuntimeUpdateResult result = run("opencode-acp");

    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_CACHE_REPAIR_FAILED.type());
    assertThat(result.repair()).isEqualTo(RepairResult.FAILED);
    assertThat(result.repaired()).isFalse();
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(activities.calls).containsExactly("update:1", "repair");
  }

  @Test
  void aFailedProbeIsTerminalAndNotRetried() throws Exception {
    activities.updates.add(true);
    activities.probeFails = true;

    RuntimeUpdateResult result = run("gemini");

    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_PROBE_FAILED.type());
    assertThat(result.error()).isEqualTo("ACP capability probe: unsupported protocol version 2");
    assertThat(activities.calls).containsExactly("update:1", "probe");
  }

  @Test
  void anUnknownAgentRunsNothing() throws Exception {
    RuntimeUpdateResult result = run("@evil/package");

    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_UNKNOWN_AGENT.type());
    assertThat(activities.calls).isEmpty();
    assertThat(activities.saved).isEmpty();
  }

  @Test
  void failureMessagesAndProgressAreBounded() throws Exception {
    activities.updates.addAll(List.of(false, false));
    activities.failureMessage = "x".repeat(10_000);
    activities.tailLines = 500;

    RuntimeUpdateResult result = run("opencode-acp");

    assertThat(result.error()).hasSizeLessThanOrEqualTo(RuntimeUpdateWorkflowImpl.MAX_ERROR_CHARS);
    assertThat(result.progress()).hasSizeLessThanOrEqualTo(RuntimeUpdateWorkflowImpl.MAX_PROGRESS_LINES);
    assertThat(result.progress()).allMatch(line -> line.length() <= RuntimeUpdateWorkflowImpl.MAX_ERROR_CHARS);
  }

  /** Steps that succeed or fail as scripted, recording what ran. */
  static final class ScriptedActivities implements RuntimeUpdateActivities {
    final Deque<Boolean> updates = new ArrayDeque<>();
    final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    final List<RuntimeJobSnapshot> saved = Collections.synchronizedList(new ArrayList<>());
    /** The repair activity's failure type, or null: it succeeds. */
    volatile String repairFailure;
    volatile boolean treeExists = true;
    volatile boolean probeFails;
    volatile String failureMessage = "npm exec … exited with code 1: npm error code EJSONPARSE";
    volatile int tailLines = 1;

    @Override
    public void saveJob(RuntimeJobSnapshot job) {
      saved.add(job);
    }

    @Override
    public UpdateOutcome runUpdate(UpdateStep step) {
      calls.add("update:" + step.attempt());
      List<String> tail = Collections.nCopies(tailLines, "npm error code EJSONPARSE");
      UpdateOutcome outcome = new UpdateOutcome(List.of("npm", "exec"), 0, false, 5, tail);
      if (!updates.isEmpty() && updates.poll()) {
        return outcome;
      }
      throw ApplicationFailure.newNonRetryableFailure(failureMessage, FailureType.RUNTIME_UPDATE_FAILED.type(), outcome);
    }

    @Override
    public RepairOutcome repairExecutionCache(RepairStep step) {
      calls.add("repair");
      if (repairFailure != null) {
        throw ApplicationFailure.newNonRetryableFailure("refusing: symlink", repairFailure);
      }
      return new RepairOutcome("/cache", "e2094862b59aac7b", "/cache/_npx/e2094862b59aac7b", treeExists);
    }

    @Override
    public ProbeInfo probeAcp(ProbeStep step) {
      calls.add("probe");
      if (probeFails) {
        throw ApplicationFailure.newNonRetryableFailure("unsupported protocol version 2", FailureType.RUNTIME_PROBE_FAILED.type());
      }
      return new ProbeInfo("agent", "1.0", 1, true);
    }
  }
}
