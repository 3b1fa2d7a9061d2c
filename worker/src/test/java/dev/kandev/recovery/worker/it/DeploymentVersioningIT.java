package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.ActivityRun;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.NextRelease;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.VersioningBehavior;
import io.temporal.api.enums.v1.WorkflowTaskFailedCause;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The upgrade and the rollback of docs/upgrades.md, black-box, with the Temporal CLI commands that
 * page shows, on a real dev server, between the packaged jars of two builds: this one (build id: its
 * version) and the next release ({@link NextRelease}: this source tree with a workflow change behind
 * {@code getVersion("upgrade-drill")} that upserts a memo, a write of a new column, and that column's
 * expand migration {@code V98}, built with a version of its own). Twenty resumes whose agents are held
 * in ACP {@code initialize} on the old version while the new one starts (migrating the schema to
 * V98) and is made current finish on the old one (pinned, without the change, on the V98 schema), a
 * resume started after the switch runs on the new one (with the change), the old one drains and its
 * worker stops. Rolled back with the steps of docs/upgrades.md "Rolling back" (the old worker started
 * again, on the V98 schema; the old version made current; the new one drained, its worker stopped),
 * the same the other way. Last, a schema contracted beyond this release makes its worker refuse to
 * start. No workflow task of a run ran on another version, and none failed for non-determinism.
 *
 * <p>The next release's jar is cached under {@code worker/target/next-release}; when its patch no
 * longer applies, the test fails saying so and {@link NextRelease} says how to regenerate it.
 */
public class DeploymentVersioningIT {
  private static final String DEPLOYMENT = "kandev-recovery";
  private static final int HELD = 20;
  private static final Duration WITHIN = Duration.ofMinutes(2);
  private static final String NEW_NOTE = "settled by the next release";

  private final long started = System.nanoTime();
  private RealTemporalServer.Flagged server;
  private CompletableFuture<NextRelease.Build> building;

  @RegisterExtension
  @Order(1)
  final AfterEachCallback stopServer = context -> {
    if (server != null) {
      server.close();
    }
    if (building != null) {
      // A test that failed before it needed the build: its mvn must not outlive the test JVM.
      building.handle((build, failure) -> build).get(5, TimeUnit.MINUTES);
    }
  };

  @RegisterExtension
  @Order(2)
  final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void heldResumesFinishOnTheirPinnedReleaseNewOnesRunOnTheCurrentAndTheOldOneDrainsBothWays() throws Exception {
    Path root = NextRelease.sourceRoot();
    building = CompletableFuture.supplyAsync(() -> {
      try {
        NextRelease.Build build = NextRelease.build(root, Duration.ofMinutes(5));
        phase("next release " + build.version() + " ready");
        return build;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    Release old = new Release(KandevProcess.jar(), NextRelease.currentVersion(root), false);

    // The server reports drainage after its grace period: shortened from minutes to seconds.
    server = RealTemporalServer.startWith(cluster.dir().resolve("temporal"), null, List.of(
        "--dynamic-config-value", "matching.wv.VersionDrainageStatusVisibilityGracePeriod=\"3s\"",
        "--dynamic-config-value", "matching.wv.VersionDrainageStatusRefreshInterval=\"1s\""));
    cluster.temporalPort = Integer.parseInt(server.address().substring(server.address().lastIndexOf(':') + 1));
    cluster.setting("KANDEV_WORKER_VERSIONING", "true");
    cluster.setting("KANDEV_MAX_CONCURRENT_LAUNCHES", Integer.toString(HELD + 2)); // a held launch keeps its slot
    worker("w-old", old);
    setCurrent(old);
    Map<String, ResumeHandle> heldOnOld = startHeld("held-old-");
    phase("held on the old version");

    // Upgrade (docs/upgrades.md "The procedure"): the new release's workers next to the old ones,
    // migrating the schema as they start; then current.
    Release next = release(join(building));
    phase("next release built");
    assertThat(next.buildId()).isNotEqualTo(old.buildId());
    worker("w-new", next);
    assertThat(cluster.fixtures.count("SELECT count(*) FROM flyway_schema_history WHERE version = '12' AND success"))
        .as("the new release's expand migration applied while the old version's resumes are in flight").isOne();
    setCurrent(next);
    assertThat(describe().path("routingConfig").path("currentVersionBuildID").asText()).isEqualTo(next.buildId());
    Await.until(() -> drainage(old).equals("draining"), WITHIN, "version " + old.buildId() + " to be draining");
    phase("next release current");
    assertEachResumeStaysOnItsVersion(heldOnOld, old, "w-old", "after-upgrade", next, "w-new");
    // The visibility query of docs/upgrades.md's step 4 (Drain), and the same without the status.
    String ofOld = "TemporalWorkerDeploymentVersion=\"" + DEPLOYMENT + ":" + old.buildId() + "\"";
    Await.until(() -> cluster.client().countWorkflows(ofOld).getCount() == HELD, WITHIN,
        "the held resumes listed under version " + old.buildId());
    assertThat(cluster.client().countWorkflows(ofOld + " AND ExecutionStatus=\"Running\"").getCount()).isZero();
    retire("w-old");
    phase("upgraded, old version drained and retired");

    // Rollback (docs/upgrades.md "Rolling back"), with resumes held on the new version.
    Map<String, ResumeHandle> heldOnNext = startHeld("held-next-");
    worker("w-old-again", old); // 1. the retired version's workers again, on the expanded schema
    setCurrent(old); // 2.
    Await.until(() -> drainage(next).equals("draining"), WITHIN, "version " + next.buildId() + " to be draining");
    phase("held on the next release, old version current again");
    assertEachResumeStaysOnItsVersion(heldOnNext, next, "w-new", "after-rollback", old, "w-old-again"); // 3.
    retire("w-new");
    phase("rolled back, next release drained and retired");

    // A later release contracted the schema beyond this one: its worker refuses in one line, exit code 8.
    cluster.fixtures.exec("UPDATE schema_compatibility SET oldest_compatible_version = 99");
    Map<String, String> env = new HashMap<>(cluster.environment("w-refused"));
    env.put("TEMPORAL_ADDRESS", cluster.temporalAddress());
    KandevProcess.Result refused = KandevProcess.run(env, cluster.logDir(), WITHIN, "worker");
    assertThat(refused.exitCode()).as(refused.output()).isEqualTo(8);
    assertThat(refused.output()).doesNotContain("\tat ", "Exception");
    assertThat(refused.output().lines().filter(line -> line.startsWith("kandev-recovery worker: "))).singleElement()
        .isEqualTo("kandev-recovery worker: schema " + cluster.schema() + " is at migration 98 and needs a worker that"
            + " knows migration 99 or later, but this worker knows migrations up to 16: run that newer release"
            + " (docs/upgrades.md)");
  }

  /**
   * Once {@code current} is the current version: a resume started now ({@code afterId}) runs on
   * {@code current}'s worker while the held ones, let go, finish on {@code held}'s ({@code heldWorker})
   * and are settled by its code; then {@code held} drains.
   */
  private void assertEachResumeStaysOnItsVersion(Map<String, ResumeHandle> heldResumes, Release held, String heldWorker,
      String afterId, Release current, String currentWorker) throws Exception {
    ResumeHandle after = startResume(afterId);
    cluster.agentMode("normal");
    for (Map.Entry<String, ResumeHandle> resume : heldResumes.entrySet()) {
      resume.getValue().await(WITHIN);
      assertRanOn(resume.getValue(), held, heldWorker);
      assertSettledBy(resume.getKey(), held);
    }
    after.await(WITHIN);
    assertRanOn(after, current, currentWorker);
    assertSettledBy(afterId, current);
    Await.until(() -> drainage(held).equals("drained"), WITHIN, "version " + held.buildId() + " to be drained");
  }

  /**
   * A packaged jar and the build id its workers poll as (the jar's version: no KANDEV_BUILD_ID is
   * set); {@code isNext}: its resumes take the next release's workflow change and write its column.
   */
  private record Release(Path jar, String buildId, boolean isNext) {}

  private static Release release(NextRelease.Build build) {
    return new Release(build.jar(), build.version(), true);
  }

  private static NextRelease.Build join(CompletableFuture<NextRelease.Build> building) throws InterruptedException {
    try {
      return building.get(5, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof AssertionError failure ? failure : new AssertionError(e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the next release was not built within 5 min", e);
    }
  }

  /** How long the test took to reach a phase, in its output (the budget of this test is watched in CI). */
  private void phase(String name) {
    System.out.printf("%s after %d s%n", name, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
  }

  /** {@value #HELD} resumes whose agents are held in ACP initialize, once every agent is. */
  private Map<String, ResumeHandle> startHeld(String prefix) {
    cluster.agentMode("hold-initialize");
    Map<String, ResumeHandle> held = new LinkedHashMap<>();
    for (int i = 0; i < HELD; i++) {
      held.put(prefix + i, startResume(prefix + i));
    }
    held.keySet().forEach(cluster::awaitAgentStarting);
    return held;
  }

  private ResumeHandle startResume(String sessionId) {
    cluster.newSession(sessionId, SessionState.CREATED);
    return cluster.start(sessionId, ResumeMode.START_FRESH);
  }

  /** A {@code worker} of {@code release}'s jar, polling as its version; returns once it is ready. */
  private void worker(String instance, Release release) {
    Map<String, String> env = new HashMap<>(cluster.environment(instance));
    env.put("TEMPORAL_ADDRESS", cluster.temporalAddress());
    env.put("KANDEV_STATE_DIR", cluster.dir().resolve("state-" + instance).toString());
    cluster.started(instance, KandevProcess.start(instance, env, cluster.logDir(), release.jar(), "worker"))
        .awaitOutput("versioning on: deployment " + DEPLOYMENT + ", build id " + release.buildId(), Duration.ofSeconds(5));
  }

  /** docs/upgrades.md "Retire": the drained version's worker stops as a service manager stops it. */
  private void retire(String instance) {
    assertThat(cluster.process(instance).terminate(Duration.ofSeconds(60))).as("a JVM ended by SIGTERM").isEqualTo(143);
  }

  /**
   * The run is pinned to {@code release}, all its workflow tasks and its launch ran on {@code worker},
   * none failed for non-determinism, and it took the next release's workflow change exactly when it
   * ran on the next release.
   */
  private void assertRanOn(ResumeHandle resume, Release release, String worker) {
    WorkflowExecutionInfo info = cluster.client().getWorkflowServiceStubs().blockingStub()
        .describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(resume.workflowId()).setRunId(resume.runId()))
            .build())
        .getWorkflowExecutionInfo();
    assertThat(info.getVersioningInfo().getBehavior()).isEqualTo(VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
    assertThat(info.getVersioningInfo().getDeploymentVersion().getBuildId()).as("version of %s", resume.workflowId())
        .isEqualTo(release.buildId());
    List<HistoryEvent> events = cluster.client().fetchHistory(resume.workflowId(), resume.runId()).getEvents();
    // A cold worker JVM on a loaded machine may trip the SDK's deadlock detector on a first task (retried
    // at once on the same worker); no task may fail otherwise, for non-determinism least of all.
    assertThat(events).filteredOn(HistoryEvent::hasWorkflowTaskFailedEventAttributes)
        .extracting(HistoryEvent::getWorkflowTaskFailedEventAttributes)
        .allSatisfy(failed -> {
          assertThat(failed.getCause()).isNotEqualTo(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR);
          assertThat(failed.getFailure().getMessage()).as("a failed workflow task").contains("[TMPRL1101] Potential deadlock detected");
          assertThat(failed.getIdentity()).isEqualTo(worker);
        });
    assertThat(events).filteredOn(HistoryEvent::hasWorkflowTaskCompletedEventAttributes)
        .extracting(e -> e.getWorkflowTaskCompletedEventAttributes().getIdentity())
        .isNotEmpty().containsOnly(worker);
    assertThat(cluster.activities(resume.workflowId(), resume.runId())).filteredOn(run -> run.type().equals("LaunchAgent"))
        .extracting(ActivityRun::worker).containsExactly(worker);
    assertThat(events.stream().anyMatch(DeploymentVersioningIT::isUpgradeDrillMarker))
        .as("%s recorded the getVersion marker upgrade-drill", resume.workflowId()).isEqualTo(release.isNext());
    assertThat(info.getMemo().getFieldsMap().containsKey("release"))
        .as("%s upserted the next release's memo", resume.workflowId()).isEqualTo(release.isNext());
  }

  private static boolean isUpgradeDrillMarker(HistoryEvent event) {
    if (!event.hasMarkerRecordedEventAttributes()) {
      return false;
    }
    Payloads changeId = event.getMarkerRecordedEventAttributes().getDetailsMap().get("changeId");
    return changeId != null
        && changeId.getPayloadsList().stream().anyMatch(p -> p.getData().toStringUtf8().equals("\"upgrade-drill\""));
  }

  /** The session settled, by {@code release}'s activities: only the next release writes the new column. */
  private void assertSettledBy(String sessionId, Release release) {
    assertThat(cluster.state(sessionId)).isEqualTo(SessionState.WAITING_FOR_INPUT);
    assertThat(cluster.fixtures.string("SELECT upgrade_note FROM task_sessions WHERE id = ?", sessionId))
        .as("upgrade_note of %s", sessionId).isEqualTo(release.isNext() ? NEW_NOTE : "");
  }

  /**
   * The docs' set-current-version; a version the server has not registered yet (its worker polls, the
   * server records the version a moment later) is retried.
   */
  private void setCurrent(Release release) {
    Await.until(() -> {
      try {
        return deployment("set-current-version", "--deployment-name", DEPLOYMENT, "--build-id", release.buildId(), "--yes");
      } catch (AssertionError | IOException e) {
        return "refused: " + e.getMessage();
      }
    }, output -> !output.startsWith("refused: "), Duration.ofSeconds(30), "version " + release.buildId() + " to be made current");
  }

  private String drainage(Release release) {
    for (JsonNode version : describe().path("versionSummaries")) {
      if (version.path("BuildID").asText().equals(release.buildId())) {
        return version.path("drainageStatus").asText();
      }
    }
    throw new AssertionError("no version " + release.buildId() + " in " + describe());
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
