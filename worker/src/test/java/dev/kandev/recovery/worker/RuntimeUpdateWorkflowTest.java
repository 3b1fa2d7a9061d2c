package dev.kandev.recovery.worker;

import static dev.kandev.recovery.worker.harness.HistorySteps.scheduled;
import static dev.kandev.recovery.worker.harness.HistorySteps.scheduledTypes;
import static dev.kandev.recovery.worker.harness.RuntimeUpdateHarness.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.runtime.NpxKey;
import dev.kandev.recovery.activities.store.RuntimeJobRecord;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestAgentNpmWorld;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.cli.UpdateRuntimeCommand;
import dev.kandev.recovery.worker.harness.ByTypeName;
import dev.kandev.recovery.worker.harness.RuntimeUpdateHarness;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.client.InvalidRequestException;
import dev.kandev.recovery.workflows.client.RuntimeUpdateClient;
import dev.kandev.recovery.workflows.runtime.ProbeInfo;
import dev.kandev.recovery.workflows.runtime.RepairResult;
import dev.kandev.recovery.workflows.runtime.RuntimeJobStatus;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateRequest;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateResult;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateStatus;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflow;
import dev.kandev.recovery.workflows.runtime.TestAgents;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributes;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.failure.ApplicationFailure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The spec's runtime scenarios end to end: Temporal test server, the real worker components, real
 * npm with a private cache, and the ACP test agent published on a local registry under the plain
 * registry spec {@code kandev-test-agent}.
 */
public class RuntimeUpdateWorkflowTest {
  private static final String AGENT = TestAgents.TEST_AGENT.agentId();
  private static final String SPEC = TestAgents.TEST_AGENT.packageSpec();
  private static final String SIBLING_SPEC = SPEC + "@1.0.0";
  private static final Duration WAIT = Duration.ofSeconds(90);

  @RegisterExtension static final TestAgentNpmWorld world = new TestAgentNpmWorld();
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final RuntimeUpdateHarness harness = RuntimeUpdateHarness.onTestServer(db, world);

  /** A corrupt tree next to an intact sibling tree and a healthy content cache. */
  private Map<String, String> corruptRuntimeWithNeighbours() throws Exception {
    world.installThroughNpx();
    harness.extractSibling(SIBLING_SPEC);
    Files.createDirectories(harness.npm().cache().resolve("_npx/keep-me"));
    Files.writeString(harness.npm().cache().resolve("_npx/keep-me/marker"), "keep");
    harness.corrupt(SPEC);
    return snapshot(harness.npm().cache());
  }

  private static void assertOnlyTheTreeWasReplaced(Map<String, String> before, Map<String, String> after, boolean reExtracted) {
    String tree = "_npx/" + NpxKey.of(SPEC);
    before.forEach((path, content) -> {
      if (path.startsWith("_npx/") && !path.startsWith(tree)) {
        assertThat(after).as("sibling _npx entry %s", path).containsEntry(path, content);
      } else if (path.startsWith("_cacache")) {
        assertThat(after).as("content cache entry %s still there", path).containsKey(path);
      }
    });
    if (!reExtracted) {
      assertThat(after.keySet()).noneMatch(path -> path.startsWith(tree));
    }
  }

  @Test
  void corruptExtractedRuntimeIsRepairedOnceRetriedAndProbed() throws Exception {
    Map<String, String> before = corruptRuntimeWithNeighbours();

    RuntimeUpdateClient.Job job = harness.updates().start(AGENT, "user:alice");
    RuntimeUpdateResult result = job.await(WAIT);

    assertThat(result.status()).as(String.join("\n", result.progress())).isEqualTo(RuntimeUpdateStatus.SUCCEEDED);
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(result.repaired()).isTrue();
    assertThat(result.repair()).isEqualTo(RepairResult.REMOVED);
    assertThat(result.probe()).isEqualTo(new ProbeInfo("kandev-test-agent", "1.0.0", 1, true));
    assertThat(result.progress()).contains(
        "managed runtime cache appears stale; repairing execution cache",
        "removed " + harness.npm().npxTree(SPEC),
        "retrying managed runtime update",
        "ACP initialize ok: kandev-test-agent 1.0.0, protocol version 1");
    assertThat(result.progress()).anyMatch(line -> line.contains("EJSONPARSE"));

    Map<String, String> after = snapshot(harness.npm().cache());
    assertOnlyTheTreeWasReplaced(before, after, true);
    assertThat(Files.size(harness.npm().npxTree(SPEC).resolve("package.json"))).isPositive();
    assertThat(Files.size(harness.npm().npxTree(SPEC).resolve("node_modules/kandev-test-agent/bin/kandev-test-agent.js"))).isPositive();

    RuntimeJobRecord record = db.tx(h -> TestStores.runtimeJob(h, job.runId())).orElseThrow();
    assertThat(record.job().status()).isEqualTo(RuntimeJobStatus.SUCCEEDED);
    assertThat(record.job().attempts()).isEqualTo(2);
    assertThat(record.job().repaired()).isTrue();
    assertThat(record.job().progress()).isEqualTo(result.progress());
    assertThat(record.job().requestedBy()).isEqualTo("user:alice");
    assertThat(record.finishedAt()).isNotNull();

    WorkflowExecutionHistory history = harness.history(job.workflowId(), job.runId());
    assertThat(scheduledTypes(history)).containsExactly(
        "RuntimeSaveJob", "RuntimeSaveJob", "RuntimeRunUpdate", "RuntimeSaveJob", "RuntimeRepairExecutionCache",
        "RuntimeSaveJob", "RuntimeRunUpdate", "RuntimeSaveJob", "RuntimeProbeAcp", "RuntimeSaveJob");
    assertNpmStepsRunOnce(history);
    assertThat(history.getEvents().stream().filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED))
        .hasSize(1);
    RuntimeUpdateHarness.recordIfAsked(history, "success-after-repair");
  }

  @Test
  void failedRepairRetryIsTerminalWithoutFurtherRetryOrBroadDeletion() throws Exception {
    Map<String, String> before = corruptRuntimeWithNeighbours();
    harness.registry().stopServing(); // the package is gone from the registry: the retry cannot fetch it

    RuntimeUpdateClient.Job job = harness.updates().start(AGENT, "user:alice");
    RuntimeUpdateResult result = job.await(WAIT);

    assertThat(result.status()).isEqualTo(RuntimeUpdateStatus.FAILED);
    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_UPDATE_FAILED.type());
    assertThat(result.error()).startsWith("update runtime after cache repair: ").contains("E404").hasSizeLessThan(2100);
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(result.repaired()).isTrue();
    assertThat(result.repair()).isEqualTo(RepairResult.REMOVED);
    assertThat(result.probe()).isNull();

    assertOnlyTheTreeWasReplaced(before, snapshot(harness.npm().cache()), false);

    RuntimeJobRecord record = db.tx(h -> TestStores.runtimeJob(h, job.runId())).orElseThrow();
    assertThat(record.job().status()).isEqualTo(RuntimeJobStatus.FAILED);
    assertThat(record.job().attempts()).isEqualTo(2);
    assertThat(record.job().repaired()).isTrue();
    assertThat(record.job().error()).isEqualTo(result.error());
    assertThat(record.finishedAt()).isNotNull();

    WorkflowExecutionHistory history = harness.history(job.workflowId(), job.runId());
    assertThat(scheduledTypes(history)).containsExactly(
        "RuntimeSaveJob", "RuntimeSaveJob", "RuntimeRunUpdate", "RuntimeSaveJob", "RuntimeRepairExecutionCache",
        "RuntimeSaveJob", "RuntimeRunUpdate", "RuntimeSaveJob");
    assertNpmStepsRunOnce(history);
    assertThat(history.getLastEvent().getEventType()).isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED);
    RuntimeUpdateHarness.recordIfAsked(history, "terminal-failure");
  }

  @Test
  void refusedRepairIsTerminalAfterOneUpdateAndDeletesNothing() throws Exception {
    // the package's _npx/<key> is a symlink to a corrupt tree elsewhere: npm follows it and fails,
    // the repair refuses to touch it
    world.installThroughNpx();
    Path elsewhere = harness.dir().resolve("elsewhere");
    Files.move(harness.npm().npxTree(SPEC), elsewhere);
    Files.createSymbolicLink(harness.npm().npxTree(SPEC), elsewhere);
    harness.corrupt(SPEC);
    Map<String, String> before = snapshot(harness.dir());

    RuntimeUpdateClient.Job job = harness.updates().start(AGENT, "user:alice");
    RuntimeUpdateResult result = job.await(WAIT);

    assertThat(result.status()).isEqualTo(RuntimeUpdateStatus.FAILED);
    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_CACHE_REPAIR_FAILED.type());
    assertThat(result.error()).startsWith("repair runtime execution cache: refusing").contains("symlink");
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(result.repaired()).as("refused is not repaired").isFalse();
    assertThat(result.repair()).isEqualTo(RepairResult.REFUSED);
    assertThat(db.tx((Handle h) -> TestStores.runtimeJob(h, job.runId())).orElseThrow().job().repaired()).isFalse();
    assertThat(job.progress().repair()).isEqualTo(RepairResult.REFUSED);
    assertThat(UpdateRuntimeCommand.outcomeLine(result)).isEqualTo("FAILED [RUNTIME_CACHE_REPAIR_FAILED]: "
        + result.error() + " (1 update attempt(s), repair: refused)");
    Map<String, String> after = snapshot(harness.dir());
    before.keySet().stream().filter(p -> !p.contains("_logs") && !p.contains("_cacache"))
        .forEach(path -> assertThat(after).as(path).containsEntry(path, before.get(path)));
    assertThat(scheduledTypes(harness.history(job.workflowId(), job.runId()))).containsExactly(
        "RuntimeSaveJob", "RuntimeSaveJob", "RuntimeRunUpdate", "RuntimeSaveJob", "RuntimeRepairExecutionCache",
        "RuntimeSaveJob");
  }

  @Test
  void aRepairThatFindsNothingToRemoveSaysSoAndIsNotReportedAsRepaired() throws Exception {
    harness.registry().stopServing(); // never extracted, and the registry no longer has it: both updates fail

    RuntimeUpdateClient.Job job = harness.updates().start(AGENT, "user:alice");
    RuntimeUpdateResult result = job.await(WAIT);

    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_UPDATE_FAILED.type());
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(result.repaired()).isFalse();
    assertThat(result.repair()).isEqualTo(RepairResult.NOTHING_TO_REMOVE);
    assertThat(result.progress()).contains("nothing to remove at " + harness.npm().npxTree(SPEC));
    assertThat(db.tx((Handle h) -> TestStores.runtimeJob(h, job.runId())).orElseThrow().job().repaired()).isFalse();
    assertThat(UpdateRuntimeCommand.outcomeLine(result)).endsWith("(2 update attempt(s), repair: nothing to remove)");
  }

  @Test
  void healthyRuntimeIsUpdatedOnceWithoutRepairAndProbed() throws Exception {
    world.installThroughNpx();
    Map<String, String> before = snapshot(harness.npm().npxTree(SPEC));

    RuntimeUpdateClient.Job job = harness.updates().start(AGENT, "user:bob");
    RuntimeUpdateResult result = job.await(WAIT);

    assertThat(result.status()).isEqualTo(RuntimeUpdateStatus.SUCCEEDED);
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(result.repaired()).isFalse();
    assertThat(result.repair()).isEqualTo(RepairResult.NOT_RUN);
    assertThat(result.probe().protocolVersion()).isEqualTo(1);
    assertThat(snapshot(harness.npm().npxTree(SPEC)).keySet()).containsAll(before.keySet());
    assertThat(scheduledTypes(harness.history(job.workflowId(), job.runId()))).containsExactly(
        "RuntimeSaveJob", "RuntimeSaveJob", "RuntimeRunUpdate", "RuntimeSaveJob", "RuntimeProbeAcp", "RuntimeSaveJob");
  }

  @Test
  void failedProbeIsTerminalAndReportsNoSuccess() throws Exception {
    RuntimeUpdateClient.Job job = harness.updates().start(TestAgents.BROKEN_ACP.agentId(), "user:bob");
    RuntimeUpdateResult result = job.await(WAIT);

    assertThat(result.status()).isEqualTo(RuntimeUpdateStatus.FAILED);
    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_PROBE_FAILED.type());
    assertThat(result.error()).startsWith("ACP capability probe: ").contains("before answering initialize");
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(result.repaired()).isFalse();
    assertThat(db.tx((Handle h) -> TestStores.runtimeJob(h, job.runId())).orElseThrow().job().status()).isEqualTo(RuntimeJobStatus.FAILED);
    WorkflowExecutionHistory history = harness.history(job.workflowId(), job.runId());
    assertThat(scheduledTypes(history)).filteredOn(type -> type.equals("RuntimeProbeAcp")).hasSize(1);
    assertNpmStepsRunOnce(history);
  }

  @Test
  void unknownAgentIsRejectedBeforeAnythingRuns() throws Exception {
    RuntimeUpdateClient.Job job = harness.updates().start("../../etc", "user:mallory");
    RuntimeUpdateResult result = job.await(WAIT);

    assertThat(result.status()).isEqualTo(RuntimeUpdateStatus.FAILED);
    assertThat(result.errorType()).isEqualTo(FailureType.RUNTIME_UNKNOWN_AGENT.type());
    assertThat(result.error()).contains("unknown agent '../../etc'").contains("opencode-acp");
    assertThat(result.attempts()).isZero();
    assertThat(scheduledTypes(harness.history(job.workflowId(), job.runId()))).isEmpty();
    assertThat(db.tx((Handle h) -> TestStores.runtimeJobsOf(h, "../../etc"))).isEmpty();
    assertThat(harness.registry().requests()).isEmpty();
    assertThat(harness.npm().cache().resolve("_npx")).doesNotExist();
  }

  @Test
  void aStartByTypeNameWithANullOrNoInputFailsAtOnceAsAnInvalidRequest() throws Exception {
    for (Object[] input : List.of(new Object[] {null}, new Object[0])) {
      WorkflowStub stub = startByTypeName("runtime-update-" + AGENT, input);
      assertInvalidRequest(stub,
          "a runtime update needs an input with an agentId; the payload was null or missing; nothing was done");
    }
    assertNothingRan();
  }

  @Test
  void unknownFieldsAreIgnoredAndWrongTypesFailAtOnceInTheContractsWords() throws Exception {
    WorkflowStub unknownField = startByTypeName("runtime-update-no-such-agent",
        ByTypeName.json("{\"agentId\": \"no-such-agent\", \"priority\": 1}"));
    // read, then refused for what it asks, not for how it is written
    assertThat(ByTypeName.failure(harness.client(), unknownField).getType()).isEqualTo(FailureType.RUNTIME_UNKNOWN_AGENT.type());

    WorkflowStub wrongType = startByTypeName("runtime-update-" + AGENT,
        ByTypeName.json("{\"agentId\": [\"" + AGENT + "\"], \"requestedBy\": \"go\"}"));
    assertInvalidRequest(wrongType, "invalid RuntimeUpdateWorkflow input: field 'agentId' must be a string; nothing was done");
    assertNothingRan();
  }

  @Test
  void agentIdsPastTheLimitsOrWithControlCharactersAreInvalidRequestsAndRunNothing() throws Exception {
    Map<String, String> expected = Map.of(
        "a".repeat(241), "agentId is 241 bytes long; at most 240 (UTF-8) are allowed; nothing was done",
        AGENT + "\r\n", "agentId contains a control character (U+000D at index " + AGENT.length() + "); nothing was done",
        "", "agentId is missing; nothing was done");

    int n = 0;
    for (Map.Entry<String, String> id : expected.entrySet()) {
      WorkflowStub byTypeName = startByTypeName("runtime-update-bad-" + n++, Map.of("agentId", id.getKey(), "requestedBy", "go"));
      assertInvalidRequest(byTypeName, id.getValue());

      assertThatThrownBy(() -> harness.updates().start(id.getKey(), "user:alice"))
          .isInstanceOf(InvalidRequestException.class).hasMessage(id.getValue());
      assertThat(ByTypeName.exists(harness.client(), RuntimeUpdateWorkflow.workflowId(id.getKey()))).isFalse();
    }
    assertThat(db.fixtures().count("SELECT count(*) FROM runtime_update_jobs")).isZero();
    assertThat(harness.registry().requests()).isEmpty();
  }

  @Test
  void cliRefusesAnInvalidAgentIdWithExitCodeTwo() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit = UpdateRuntimeCommand.follow(
        harness.updates(), new RuntimeUpdateRequest("opencode-acp\n", "cli:test"), WAIT, new PrintStream(bytes, true, StandardCharsets.UTF_8));

    assertThat(exit).isEqualTo(2);
    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .isEqualTo("refused [INVALID_REQUEST]: agentId contains a control character (U+000A at index 12); nothing was done\n");
  }

  @Test
  void aStartByTypeNameGetsEveryDocumentedSearchAttributeFromTheWorkflowItself() throws Exception {
    world.installThroughNpx();
    WorkflowStub healthy = startByTypeName(RuntimeUpdateWorkflow.workflowId(AGENT), Map.of("agentId", AGENT, "requestedBy", "go"));
    assertThat(healthy.getResult(WAIT.toSeconds(), TimeUnit.SECONDS, RuntimeUpdateResult.class).status())
        .isEqualTo(RuntimeUpdateStatus.SUCCEEDED);
    SearchAttributes attributes = healthy.describe().getTypedSearchAttributes();
    assertThat(attributes.get(RecoverySearchAttributes.AGENT_ID)).isEqualTo(AGENT);
    assertThat(attributes.get(RecoverySearchAttributes.OUTCOME)).isEqualTo("succeeded");
    RuntimeUpdateHarness.recordIfAsked(harness.history(healthy.getExecution().getWorkflowId(),
        healthy.getExecution().getRunId()), "by-type-name");

    WorkflowStub unknown = startByTypeName(RuntimeUpdateWorkflow.workflowId("no-such-agent"), Map.of("agentId", "no-such-agent"));
    assertThat(ByTypeName.failure(harness.client(), unknown).getType()).isEqualTo(FailureType.RUNTIME_UNKNOWN_AGENT.type());
    attributes = unknown.describe().getTypedSearchAttributes();
    assertThat(attributes.get(RecoverySearchAttributes.AGENT_ID)).isEqualTo("no-such-agent");
    assertThat(attributes.get(RecoverySearchAttributes.OUTCOME)).isEqualTo("failed");
  }

  @Test
  void aSecondStartWhileAnUpdateRunsAttachesToIt() throws Exception {
    harness.registry().hold();
    RuntimeUpdateClient.Job first = harness.updates().start(AGENT, "user:alice");
    Await.until(() -> !harness.registry().requests().isEmpty(), WAIT, "the first update to reach the registry");

    RuntimeUpdateClient.Job second = harness.updates().start(AGENT, "user:bob");
    assertThat(second.runId()).isEqualTo(first.runId());
    assertThat(second.progress().status()).isEqualTo(RuntimeJobStatus.UPDATING);
    harness.registry().release();

    assertThat(first.await(WAIT).status()).isEqualTo(RuntimeUpdateStatus.SUCCEEDED);
    assertThat(db.tx((Handle h) -> TestStores.runtimeJobsOf(h, AGENT))).hasSize(1).allMatch(row -> row.job().requestedBy().equals("user:alice"));

    RuntimeUpdateClient.Job later = harness.updates().start(AGENT, "user:bob");
    assertThat(later.runId()).as("a closed job is not reused: a retry is a new job").isNotEqualTo(first.runId());
    assertThat(later.await(WAIT).status()).isEqualTo(RuntimeUpdateStatus.SUCCEEDED);
  }

  @Test
  void cliShowsTheProgressLinesAndTheOutcome() throws Exception {
    world.installThroughNpx();
    harness.corrupt(SPEC);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit = UpdateRuntimeCommand.follow(
        harness.updates(), new RuntimeUpdateRequest(AGENT, "cli:test"), WAIT, new PrintStream(bytes, true, StandardCharsets.UTF_8));

    List<String> out = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(exit).isZero();
    assertThat(out.get(0)).startsWith("runtime update runtime-update-kandev-test-agent (run ");
    assertThat(out).containsSubsequence(
        "runtime update of kandev-test-agent (kandev-test-agent) requested by cli:test",
        "managed runtime cache appears stale; repairing execution cache",
        "retrying managed runtime update",
        "ACP initialize ok: kandev-test-agent 1.0.0, protocol version 1",
        "succeeded",
        "SUCCEEDED: kandev-test-agent 1.0.0 (ACP protocol 1), 2 update attempt(s), repair: removed");
    assertThat(out).doesNotHaveDuplicates();
  }

  @Test
  void cliReportsATerminalFailureWithExitCodeOne() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit = UpdateRuntimeCommand.follow(
        harness.updates(), new RuntimeUpdateRequest("no-such-agent", "cli:test"), WAIT, new PrintStream(bytes, true, StandardCharsets.UTF_8));

    assertThat(exit).isOne();
    assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("FAILED [RUNTIME_UNKNOWN_AGENT]: unknown agent 'no-such-agent'");
  }

  /** Temporal adds no attempts of its own to the update, repair or probe. */
  private static void assertNpmStepsRunOnce(WorkflowExecutionHistory history) {
    scheduled(history)
        .map(e -> e.getActivityTaskScheduledEventAttributes())
        .filter(a -> !a.getActivityType().getName().equals("RuntimeSaveJob"))
        .forEach(a -> assertThat(a.getRetryPolicy().getMaximumAttempts())
            .as(a.getActivityType().getName()).isEqualTo(1));
    assertThat(history.getEvents().stream()
        .filter(e -> e.hasActivityTaskStartedEventAttributes())
        .allMatch(e -> e.getActivityTaskStartedEventAttributes().getAttempt() == 1)).isTrue();
  }

  /** Starts RuntimeUpdateWorkflow by its type name, as a starter in another language does. */
  private WorkflowStub startByTypeName(String workflowId, Object... input) {
    return ByTypeName.start(harness.client(), RecoveryTaskQueue.DEFAULT, "RuntimeUpdateWorkflow", workflowId, input);
  }

  /** The run failed at once as an invalid request that says {@code message}. */
  private void assertInvalidRequest(WorkflowStub stub, String message) {
    ApplicationFailure failure = ByTypeName.failure(harness.client(), stub);
    assertThat(failure.getType()).isEqualTo("INVALID_REQUEST");
    assertThat(failure.getOriginalMessage()).isEqualTo(message);
  }

  /** No job was recorded for the agent and npm never asked the registry. */
  private void assertNothingRan() {
    assertThat(db.tx((Handle h) -> TestStores.runtimeJobsOf(h, AGENT))).isEmpty();
    assertThat(harness.registry().requests()).isEmpty();
  }
}
