package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.ActivityRun;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.VersioningBehavior;
import io.temporal.api.enums.v1.WorkflowTaskFailedCause;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.WorkflowExecutionVersioningInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The upgrade and the rollback of docs/upgrades.md, black-box, with the Temporal CLI commands that
 * page shows, on a real dev server: two versions of the worker ({@code worker} processes of the
 * packaged jar with KANDEV_WORKER_VERSIONING and build ids 1.0.0 and 2.0.0 on one host). Resumes whose
 * agents are held in ACP {@code initialize} on 1.0.0 while 2.0.0 is made current finish on 1.0.0
 * (pinned), a resume started after the switch runs on 2.0.0, and 1.0.0 then drains; rolled back, the
 * same the other way. The new release's expand migration is applied before its workers start, and
 * the old worker works on through it; a schema contracted beyond this release makes its worker refuse
 * to start. What it proves is the routing (pinned runs, their launches, new runs, drainage) of this
 * project's workers and queues and the schema rule; that a changed workflow replays old histories is
 * the replay tests' job (the two versions here run the same code).
 */
public class DeploymentVersioningIT {
  private static final String DEPLOYMENT = "kandev-recovery";
  private static final String V1 = "1.0.0";
  private static final String V2 = "2.0.0";
  private static final int HELD = 10;
  private static final Duration WITHIN = Duration.ofMinutes(2);

  private RealTemporalServer.Flagged server;

  @RegisterExtension
  @Order(1)
  final AfterEachCallback stopServer = context -> {
    if (server != null) {
      server.close();
    }
  };

  @RegisterExtension
  @Order(2)
  final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void heldResumesFinishOnTheirPinnedVersionNewOnesRunOnTheCurrentAndTheOldOneDrainsBothWays() throws Exception {
    // The server reports drainage after its grace period: shortened from minutes to seconds.
    server = RealTemporalServer.startWith(cluster.dir().resolve("temporal"), null, List.of(
        "--dynamic-config-value", "matching.wv.VersionDrainageStatusVisibilityGracePeriod=\"3s\"",
        "--dynamic-config-value", "matching.wv.VersionDrainageStatusRefreshInterval=\"1s\""));
    cluster.temporalPort = Integer.parseInt(server.address().substring(server.address().lastIndexOf(':') + 1));
    cluster.setting("KANDEV_WORKER_VERSIONING", "true");
    cluster.setting("KANDEV_MAX_CONCURRENT_LAUNCHES", Integer.toString(HELD + 2)); // a held launch keeps its slot
    worker("w-v1", V1);
    setCurrent(V1);

    cluster.agentMode("hold-initialize");
    Map<String, ResumeHandle> held = new LinkedHashMap<>();
    for (int i = 0; i < HELD; i++) {
      cluster.newSession("held-" + i, SessionState.CREATED);
      held.put("held-" + i, cluster.start("held-" + i, ResumeMode.START_FRESH));
    }
    held.keySet().forEach(cluster::awaitAgentStarting);

    // Upgrade: the new release's expand migration (the jar here is the same: the test applies it as
    // that release's workers would at start), its workers next to the old, then current.
    Flyway.configure().dataSource(TestDatabase.URL, TestDatabase.USER, "").schemas(cluster.schema())
        .locations("classpath:db/migration", "classpath:db/release-next-expand").load().migrate();
    worker("w-v2", V2);
    setCurrent(V2);
    assertThat(describe().path("routingConfig").path("currentVersionBuildID").asText()).isEqualTo(V2);
    Await.until(() -> drainage(V1).equals("draining"), WITHIN, "version " + V1 + " to be draining");
    cluster.newSession("after-upgrade", SessionState.CREATED);
    ResumeHandle afterUpgrade = cluster.start("after-upgrade", ResumeMode.START_FRESH);
    cluster.agentMode("normal");

    for (ResumeHandle resume : held.values()) {
      resume.await(WITHIN);
      assertRanOn(resume, V1, "w-v1");
    }
    afterUpgrade.await(WITHIN);
    assertRanOn(afterUpgrade, V2, "w-v2");
    held.keySet().forEach(id -> assertThat(cluster.state(id)).isEqualTo(SessionState.WAITING_FOR_INPUT));
    Await.until(() -> drainage(V1).equals("drained"), WITHIN, "version " + V1 + " to be drained");
    // The visibility query docs/upgrades.md counts a version's runs with.
    Await.until(() -> cluster.client().countWorkflows("TemporalWorkerDeploymentVersion = '" + DEPLOYMENT + ":" + V1 + "'")
        .getCount() == HELD, WITHIN, "the held resumes listed under version " + DEPLOYMENT + ":" + V1);

    // Rollback: the old version (its workers still run) current again; the new one drains.
    setCurrent(V1);
    cluster.newSession("after-rollback", SessionState.CREATED);
    ResumeHandle afterRollback = cluster.start("after-rollback", ResumeMode.START_FRESH);
    afterRollback.await(WITHIN);
    assertRanOn(afterRollback, V1, "w-v1");
    Await.until(() -> drainage(V2).equals("drained"), WITHIN, "version " + V2 + " to be drained");

    // Retire the drained version's worker: it stops as a service manager stops it.
    assertThat(cluster.process("w-v2").terminate(Duration.ofSeconds(60))).as("a JVM ended by SIGTERM").isEqualTo(143);

    // A later release contracted the schema beyond this one: its worker refuses in one line, exit code 8.
    cluster.fixtures.exec("UPDATE schema_compatibility SET oldest_compatible_version = 99");
    Map<String, String> env = new HashMap<>(cluster.environment("w-refused"));
    env.put("TEMPORAL_ADDRESS", cluster.temporalAddress());
    KandevProcess.Result refused = KandevProcess.run(env, cluster.logDir(), WITHIN, "worker");
    assertThat(refused.exitCode()).as(refused.output()).isEqualTo(8);
    assertThat(refused.output()).doesNotContain("\tat ", "Exception");
    assertThat(refused.output().lines().filter(line -> line.startsWith("kandev-recovery worker: "))).singleElement()
        .isEqualTo("kandev-recovery worker: schema " + cluster.schema() + " is at migration 12 and needs a worker that"
            + " knows migration 99 or later, but this worker knows migrations up to 11: run that newer release"
            + " (docs/upgrades.md)");
  }

  private void worker(String instance, String buildId) {
    cluster.worker(instance, RecoveryCluster.HOST, Map.of("KANDEV_BUILD_ID", buildId,
        "KANDEV_STATE_DIR", cluster.dir().resolve("state-" + instance).toString()))
        .awaitOutput("versioning on: deployment " + DEPLOYMENT + ", build id " + buildId, Duration.ofSeconds(5));
  }

  /** The run is pinned to {@code buildId}, all its workflow tasks and its launch ran on {@code worker}, none failed. */
  private void assertRanOn(ResumeHandle resume, String buildId, String worker) {
    WorkflowExecutionVersioningInfo versioning = cluster.client().getWorkflowServiceStubs().blockingStub()
        .describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(resume.workflowId()).setRunId(resume.runId()))
            .build())
        .getWorkflowExecutionInfo().getVersioningInfo();
    assertThat(versioning.getBehavior()).isEqualTo(VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
    assertThat(versioning.getDeploymentVersion().getBuildId()).as("version of %s", resume.workflowId()).isEqualTo(buildId);
    List<HistoryEvent> events = cluster.client().fetchHistory(resume.workflowId(), resume.runId()).getEvents();
    // A cold worker JVM on a loaded machine may trip the SDK's deadlock detector on a first task (retried
    // at once); what must never happen is a task another version ran, or one failed for non-determinism.
    assertThat(events).filteredOn(HistoryEvent::hasWorkflowTaskFailedEventAttributes)
        .extracting(HistoryEvent::getWorkflowTaskFailedEventAttributes)
        .allSatisfy(failed -> {
          assertThat(failed.getCause()).isNotEqualTo(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR);
          assertThat(failed.getIdentity()).isEqualTo(worker);
        });
    assertThat(events).filteredOn(HistoryEvent::hasWorkflowTaskCompletedEventAttributes)
        .extracting(e -> e.getWorkflowTaskCompletedEventAttributes().getIdentity())
        .isNotEmpty().containsOnly(worker);
    assertThat(cluster.activities(resume.workflowId(), resume.runId())).filteredOn(run -> run.type().equals("LaunchAgent"))
        .extracting(ActivityRun::worker).containsExactly(worker);
  }

  /**
   * The docs' set-current-version; a version the server has not registered yet (its worker polls, the
   * server records the version a moment later) is retried.
   */
  private void setCurrent(String buildId) {
    Await.until(() -> {
      try {
        return deployment("set-current-version", "--deployment-name", DEPLOYMENT, "--build-id", buildId, "--yes");
      } catch (AssertionError | IOException e) {
        return "refused: " + e.getMessage();
      }
    }, output -> !output.startsWith("refused: "), Duration.ofSeconds(30), "version " + buildId + " to be made current");
  }

  private String drainage(String buildId) {
    for (JsonNode version : describe().path("versionSummaries")) {
      if (version.path("BuildID").asText().equals(buildId)) {
        return version.path("drainageStatus").asText();
      }
    }
    throw new AssertionError("no version " + buildId + " in " + describe());
  }

  private JsonNode describe() {
    try {
      return Json.mapper().readTree(deployment("describe", "--name", DEPLOYMENT, "--output", "json"));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** {@code temporal worker deployment <args>} against the test's server, as docs/upgrades.md runs it. */
  private String deployment(String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(RealTemporalServer.cli().toString(), "worker", "deployment"));
    command.addAll(List.of(args));
    command.addAll(List.of("--address", server.address()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(command + " did not end within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new AssertionError(command + " failed (" + process.exitValue() + "): " + output);
    }
    return output;
  }
}
