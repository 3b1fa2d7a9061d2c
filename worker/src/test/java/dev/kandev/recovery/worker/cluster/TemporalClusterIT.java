package dev.kandev.recovery.worker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.process.ProcessTrees;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TempFolders;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.TestAgentNpmWorld;
import dev.kandev.recovery.worker.harness.HistorySteps;
import dev.kandev.recovery.worker.harness.RuntimeUpdateHarness;
import dev.kandev.recovery.workflows.client.RuntimeUpdateClient;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateStatus;
import dev.kandev.recovery.workflows.runtime.TestAgents;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import dev.kandev.recovery.activities.store.StoreException;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.worker.cluster.ClusterWorld.AgentEvent;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowServiceException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kandev-recovery on a production-shaped Temporal cluster ({@code scripts/cluster}: PostgreSQL, SQL
 * advanced visibility, 16 shards, every service its own process, two frontends behind nginx), the
 * namespace and search attributes made by the operator API, never by the worker; Temporal's
 * databases and the project's schemas on one PostgreSQL of the class's own. Black-box: the packaged
 * jar as processes through the balancer, the test agent, SIGKILL of Temporal's own services, a
 * restart of the PostgreSQL. One cluster for the class (it takes seconds to start); each test has its own schema,
 * task queue and host, and finds every service running.
 */
class TemporalClusterIT {
  private static final Duration OUTCOME = Duration.ofMinutes(3);
  private static Path dir;
  private static LocalPostgres postgres;
  private static LocalTemporalCluster cluster;

  @RegisterExtension final ClusterWorld world = new ClusterWorld(() -> cluster);

  @BeforeAll
  static void startCluster() throws Exception {
    dir = Files.createTempDirectory("kandev-temporal-cluster-");
    long began = System.nanoTime();
    postgres = LocalPostgres.start();
    cluster = LocalTemporalCluster.start(dir.resolve("cluster"), postgres);
    System.out.printf("cluster ready in %d ms%n%s", (System.nanoTime() - began) / 1_000_000, cluster.status());
  }

  @AfterAll
  static void destroyCluster() throws Exception {
    try {
      if (cluster != null) {
        try {
          System.out.print(cluster.status());
        } finally {
          cluster.keepLogs(Path.of("target", "temporal-cluster-logs"));
          cluster.close();
        }
      }
    } finally {
      try {
        if (postgres != null) {
          postgres.close();
        }
      } finally {
        TempFolders.delete(dir);
      }
    }
  }

  @BeforeEach
  void everyServiceRuns() {
    cluster.startAll();
  }

  @Test
  void startFreshThenResumeInTheAgentsOwnConversationAndListTheResumes() throws Exception {
    world.worker("w1", Map.of());
    world.newSession("s-1", SessionState.CREATED);

    JarProcess.Result fresh = world.cli(OUTCOME, "resume", "s-1", "--fresh");
    assertThat(fresh.exitCode()).as("%s", fresh).isZero();
    assertThat(fresh.stdout()).contains("outcome: STARTED_FRESH — session s-1 is WAITING_FOR_INPUT").contains("(newly created)");
    String token = world.identity("s-1").acpSessionId();
    assertThat(token).isNotEmpty();

    // the agent fails; the worker stops it; the user resumes the same conversation
    assertThat(world.tx(h -> new MirrorSessionStore(Json.mapper()).transition(h, "s-1", Set.of(SessionState.WAITING_FOR_INPUT),
        SessionState.FAILED, "test", "agent process exited", Fence.none())).won()).isTrue();
    Await.until(() -> !world.agentLive("s-1"), Duration.ofSeconds(30), "the worker to stop the failed session's agent");

    JarProcess.Result resumed = world.cli(OUTCOME, "resume", "s-1");
    assertThat(resumed.exitCode()).as("%s", resumed).isZero();
    assertThat(resumed.stdout()).contains("outcome: RESUMED — session s-1 is WAITING_FOR_INPUT, provider session " + token + " (loaded)");
    assertThat(world.identity("s-1").acpSessionId()).isEqualTo(token);
    assertThat(world.agentEvents()).filteredOn(e -> e.event().equals("session")).extracting(AgentEvent::loaded)
        .containsExactly(false, true);

    // SQL advanced visibility with the search attributes the operator API created
    JarProcess.Result listed = world.cli(Duration.ofMinutes(1), "resumes", "--session", "s-1");
    assertThat(listed.exitCode()).as("%s", listed).isZero();
    assertThat(listed.stdout()).contains("2 resume(s)");
    assertThat(listed.stdout().lines().filter(line -> line.startsWith("resume-session-s-1 ")).map(line -> line.split("\\s+")[3]))
        .containsExactly("RESUMED", "STARTED_FRESH");

    // the Web UI's API, pointed at the balancer, filters by the same search attribute
    HttpResponse<String> ui = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(cluster.webUi()
        + "/api/v1/namespaces/default/workflows?query=" + URLEncoder.encode("KandevSessionId = \"s-1\"", StandardCharsets.UTF_8)))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(ui.statusCode()).as("%s", ui.body()).isEqualTo(200);
    assertThat(Json.mapper().readTree(ui.body()).path("executions").findValuesAsText("workflowId")).as("%s", ui.body())
        .containsOnly("resume-session-s-1").isNotEmpty();
    assertThat(Json.mapper().readTree(ui.body()).path("executions")).as("%s", ui.body()).hasSize(2);
  }

  @Test
  void idsUpToTheContractsLimitRunAndLongerOnesAreUsageErrors() throws Exception {
    world.worker("w1", Map.of());
    String longest = "s".repeat(240);
    world.newSession(longest, SessionState.CREATED);

    JarProcess.Result fresh = world.cli(OUTCOME, "resume", longest, "--fresh");
    assertThat(fresh.exitCode()).as("%s", fresh).isZero();
    assertThat(fresh.stdout()).contains("outcome: STARTED_FRESH");
    assertThat(ResumeRequest.workflowId(longest)).hasSize(255);
    JarProcess.Result listed = world.cli(Duration.ofMinutes(1), "resumes", "--session", longest);
    assertThat(listed.stdout()).as("%s", listed).contains("1 resume(s)");

    for (String[] command : List.of(new String[] {"resume", longest + "x"}, new String[] {"update-runtime", "a".repeat(241)})) {
      JarProcess.Result refused = world.cli(Duration.ofMinutes(1), command);
      // the problem in one line with a pointer to --help (as every usage error), never a stack trace
      assertThat(refused.exitCode()).as("%s", refused).isEqualTo(2);
      assertThat(refused.stderr().strip().lines()).as("%s", refused).singleElement().asString()
          .contains(" is 241 bytes long; at most 240 (UTF-8) are allowed").endsWith(" --help)");
      assertThat(refused.stderr()).doesNotContain("\tat ", "Exception");
    }

    // what the limit protects from: the cluster refuses a longer workflow id itself
    Throwable refused = catchThrowable(() -> world.client().newUntypedWorkflowStub("ResumeSessionWorkflow",
            WorkflowOptions.newBuilder().setWorkflowId(ResumeRequest.workflowId(longest + "x")).setTaskQueue(world.queue()).build())
        .start(Map.of("sessionId", longest + "x", "mode", "RESUME")));
    assertThat(refused).isInstanceOf(WorkflowServiceException.class);
    assertThat(Status.fromThrowable(refused.getCause()).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(((StatusRuntimeException) refused.getCause()).getStatus().getDescription())
        .contains("WorkflowId exceeds maximum allowed length (256/255)");
  }

  /**
   * Launches in flight (held in ACP initialize) and more waiting in the host's launch queue when a
   * service is SIGKILLed; it comes back: every resume ends settled or restored, no session is left
   * STARTING or locked, no agent is launched twice.
   */
  @ParameterizedTest
  @ValueSource(strings = {"history", "matching"})
  void aKilledServiceLosesNoResume(String service) throws Exception {
    int resumes = 5;
    int cap = 2;
    Map<String, ResumeHandle> handles = heldFreshStarts("s-" + service + "-", resumes, cap);

    System.out.print(cluster.kill(service));
    cluster.startAll();
    world.agentMode("normal");

    Map<String, String> outcomes = outcomes(handles, "SIGKILL of " + service);
    assertSettledOrRestored(outcomes);
    assertThat(outcomes.values()).as("a short outage only delays the launches").containsOnly("STARTED_FRESH");
  }

  /**
   * The PostgreSQL under Temporal's databases and the project's schema stopped (as a restart does)
   * while launches are held in ACP initialize and more wait in the host's launch queue; the held
   * agents answer while it is down, so their settles meet no database. Once it is back every resume
   * ends settled or restored (a held one whose store retries ran out fails and is restored), each
   * agent launched once.
   */
  @Test
  void aPostgresRestartDuringResumesLosesNoResume() throws Exception {
    int resumes = 5;
    int cap = 2;
    Map<String, ResumeHandle> handles = heldFreshStarts("s-pg-", resumes, cap);

    postgres.stop();
    world.agentMode("normal");
    Await.until(() -> world.agentEvents().stream().filter(e -> e.event().equals("session")).count() == cap,
        Duration.ofMinutes(1), "the " + cap + " held agents to answer while PostgreSQL is down");
    postgres.startServer();
    System.out.print(cluster.startAll()); // names any service the outage stopped

    Map<String, String> outcomes = outcomes(handles, "a restart of PostgreSQL");
    assertSettledOrRestored(outcomes);
    // A store step whose retries end during the outage fails its resume, which compensates: the session
    // is restored (above), never left STARTING; most resumes only wait. Such a fault is outside the
    // failure catalogue, so its type is its exception's class name (docs/contract.md "Failure types"):
    // the store's, and no other.
    assertThat(outcomes.values()).as("each resume started fresh or failed on the store and was restored")
        .allMatch(o -> o.equals("STARTED_FRESH") || o.equals("FAILED " + StoreException.class.getName()));
    assertThat(outcomes.values()).as("most resumes only wait for PostgreSQL").filteredOn("STARTED_FRESH"::equals)
        .hasSizeGreaterThanOrEqualTo(resumes - cap);
  }

  /**
   * Every service restarted cleanly (SIGTERM, then started), one at a time, while resumes run:
   * launches held and queued through the frontends' and the worker service's restarts, released
   * before matching's and history's. All end, each one launch.
   */
  @Test
  void aRollingRestartOfEveryServiceLosesNoResume() throws Exception {
    int resumes = 50;
    int cap = 4;
    Map<String, ResumeHandle> handles = heldFreshStarts("s-roll-", resumes, cap);

    for (String service : List.of("frontend1", "frontend2", "worker", "matching", "history")) {
      if (service.equals("matching")) {
        world.agentMode("normal"); // the held launches finish and the queued ones run during the last two
      }
      System.out.print(cluster.stop(service));
      System.out.print(cluster.startAll());
    }

    Map<String, String> outcomes = outcomes(handles, "a rolling restart");
    assertSettledOrRestored(outcomes);
    assertThat(outcomes.values()).as("a clean restart only delays the launches").containsOnly("STARTED_FRESH");
  }

  /**
   * Starts worker w1 with a cap of {@code cap} launches, then {@code resumes} fresh starts of new
   * sessions with the agents held in ACP initialize, and returns once {@code cap} launches are held
   * and the rest wait in the host's launch queue.
   */
  private Map<String, ResumeHandle> heldFreshStarts(String prefix, int resumes, int cap) {
    world.worker("w1", Map.of("KANDEV_MAX_CONCURRENT_LAUNCHES", Integer.toString(cap)));
    world.agentMode("hold-initialize");
    Map<String, ResumeHandle> handles = new LinkedHashMap<>();
    for (int i = 0; i < resumes; i++) {
      String session = prefix + i;
      world.newSession(session, SessionState.CREATED);
      handles.put(session, world.resumes().start(new ResumeRequest(session, ResumeMode.START_FRESH, "user", "it")));
    }
    Await.until(() -> world.agentsStarting() == cap, Duration.ofMinutes(2), cap + " launches held in ACP initialize");
    Await.until(() -> queuedLaunches(handles.values()) == resumes - cap, Duration.ofMinutes(1),
        (resumes - cap) + " launches waiting in the host's launch queue");
    return handles;
  }

  /** Each session's outcome: the result's outcome or FAILED with the failure type. */
  private static Map<String, String> outcomes(Map<String, ResumeHandle> handles, String after) {
    Map<String, String> outcomes = new LinkedHashMap<>();
    handles.forEach((session, handle) -> {
      try {
        outcomes.put(session, handle.await(OUTCOME).outcome().name());
      } catch (ResumeFailedException e) {
        outcomes.put(session, "FAILED " + e.failure().failureType());
      } catch (TimeoutException e) {
        throw new AssertionError("the resume of " + session + " did not end within " + OUTCOME + " after " + after
            + "; outcomes so far: " + outcomes);
      }
    });
    System.out.println("after " + after + ": " + outcomes);
    return outcomes;
  }

  /**
   * Every session settled (its agent running, launched once) or restored (no agent), none left
   * STARTING or locked, and no more agent processes than resumes.
   */
  private void assertSettledOrRestored(Map<String, String> outcomes) {
    List<AgentEvent> events = world.agentEvents();
    for (String session : outcomes.keySet()) {
      SessionState state = world.state(session);
      assertThat(state).as("%s (outcomes %s)", session, outcomes)
          .isIn(SessionState.WAITING_FOR_INPUT, SessionState.CREATED);
      assertThat(world.lockHeld(session)).as("the resume lock of %s", session).isFalse();
      if (state == SessionState.WAITING_FOR_INPUT) {
        assertThat(world.agentLive(session)).as("the agent of settled %s", session).isTrue();
        String token = world.identity(session).acpSessionId();
        assertThat(events).as("agents that created %s's provider session", session)
            .filteredOn(e -> e.event().equals("session") && token.equals(e.sessionId())).hasSize(1);
      } else {
        assertThat(world.agentLive(session)).as("an agent of restored %s", session).isFalse();
      }
    }
    assertThat(events).as("agent processes launched").filteredOn(e -> e.event().equals("start"))
        .hasSizeLessThanOrEqualTo(outcomes.size());
  }

  /**
   * The CLI waits for an outcome through the balancer while each frontend in turn is SIGKILLed (and
   * started again): its call goes on through the other, new calls work, the outcome is right.
   */
  @Test
  void eitherFrontendKilledWhileTheCliWaitsThroughTheBalancer() throws Exception {
    world.worker("w1", Map.of());
    world.newSession("s-f", SessionState.CREATED);
    world.agentMode("hold-initialize");
    JarProcess waiting = world.startCli("resume", "s-f", "--fresh");
    Await.until(() -> world.agentsStarting() == 1, Duration.ofMinutes(1), "the launch to be held in ACP initialize");

    for (String frontend : List.of("frontend1", "frontend2")) {
      System.out.print(cluster.kill(frontend));
      JarProcess.Result listed = world.cli(Duration.ofMinutes(1), "resumes", "--session", "s-f", "--running");
      assertThat(listed.exitCode()).as("resumes with %s down: %s", frontend, listed).isZero();
      assertThat(listed.stdout()).contains("1 resume(s)");
      assertThat(waiting.isAlive()).as("the waiting resume command with %s down", frontend).isTrue();
      cluster.startAll();
    }
    world.agentMode("normal");

    assertThat(waiting.awaitExit(OUTCOME)).as("%s%s", waiting.stdout(), waiting.stderr()).isZero();
    assertThat(waiting.stdout()).contains("outcome: STARTED_FRESH — session s-f is WAITING_FOR_INPUT");
    assertThat(world.state("s-f")).isEqualTo(SessionState.WAITING_FOR_INPUT);
  }

  /**
   * The Go starter's own tests ({@code starters/go}, the Kandev API's way in) through the balancer,
   * against a worker on the contract's task queue, while each frontend in turn is SIGKILLed (and
   * started again) under them: they pass with none skipped, their calls going on through the other.
   */
  @Test
  void theGoStartersTestsPassOnTheClusterWhileEitherFrontendIsKilled() throws Exception {
    world.worker("w-go", Map.of("KANDEV_TASK_QUEUE", "kandev-recovery"));
    Path module = LocalTemporalCluster.REPOSITORY.resolve("starters/go");
    Path output = world.logs().resolve("go-test.log");
    ProcessBuilder builder = new ProcessBuilder("go", "test", "-count=1", "-v", "./...")
        .directory(module.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
    String database = world.databaseUrl().replaceFirst("^jdbc:postgresql://", "");
    builder.environment().putAll(Map.of(
        "KANDEV_STARTER_TEMPORAL_ADDRESS", cluster.address(),
        "KANDEV_STARTER_DB_URL", "postgres://" + TestDatabase.USER + "@" + database
            + (database.contains("?") ? "&" : "?") + "search_path=" + world.schema(),
        "KANDEV_STARTER_AGENT_MODE_FILE", world.modeFile().toString()));
    Process go = builder.start();
    try {
      // each frontend goes down while tests run (their clients connected), and comes back
      killWhenRunning(go, output, "frontend1", "TestStartFreshCreatesAProviderSession");
      startAllWhenRunning(go, output, "TestRejectedResumesChangeNothing");
      killWhenRunning(go, output, "frontend2", "TestASecondStartAttachesToTheRunningResume");
      startAllWhenRunning(go, output, "TestResumesAreListedBySession");
      assertThat(go.waitFor(5, TimeUnit.MINUTES)).as("go test ended within 5 minutes:%n%s", Files.readString(output)).isTrue();
    } finally {
      ProcessTrees.destroyForcibly(go);
    }
    String log = Files.readString(output);
    assertThat(go.exitValue()).as("go test on the cluster:%n%s", log).isZero();
    assertThat(log).as("no Go test was skipped:%n%s", log).doesNotContain("--- SKIP").contains("--- PASS: TestCancelRestoresThePriorState");
  }

  private void killWhenRunning(Process go, Path log, String frontend, String test) {
    awaitTest(go, log, test);
    System.out.print(cluster.kill(frontend));
  }

  private void startAllWhenRunning(Process go, Path log, String test) {
    awaitTest(go, log, test);
    System.out.print(cluster.startAll());
  }

  /** Until {@code go test -v} has begun {@code test} (or ended: the final assertions say why). */
  private static void awaitTest(Process go, Path log, String test) {
    Await.until(() -> !go.isAlive() || read(log).contains("=== RUN   " + test), Duration.ofMinutes(3), "go test to run " + test);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The runtime update of a corrupt execution tree, by a worker in process on the cluster (its
   * catalogue has the test agent, whose package a private npm world serves): the update fails, the
   * targeted repair, the one retry, the ACP probe, SUCCEEDED; found by its search attribute.
   */
  @Nested
  class RuntimeUpdate {
    @RegisterExtension static final TestAgentNpmWorld npm = new TestAgentNpmWorld();
    @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase(() -> postgres.jdbcUrl());
    @RegisterExtension @Order(2) final RuntimeUpdateHarness harness =
        RuntimeUpdateHarness.onServer(db, npm, () -> cluster.address(), "kandev-it-runtime-" + ProcessHandle.current().pid());

    @Test
    void aCorruptTreeIsRepairedRetriedOnceAndProbed() throws Exception {
      String agent = TestAgents.TEST_AGENT.agentId();
      npm.installThroughNpx();
      harness.corrupt(TestAgents.TEST_AGENT.packageSpec());

      RuntimeUpdateClient.Job job = harness.updates().start(agent, "user:alice");
      assertThat(job.await(OUTCOME).status()).isEqualTo(RuntimeUpdateStatus.SUCCEEDED);
      assertThat(HistorySteps.scheduledTypes(harness.history(job.workflowId(), job.runId())))
          .filteredOn(type -> !type.equals("RuntimeSaveJob"))
          .containsExactly("RuntimeRunUpdate", "RuntimeRepairExecutionCache", "RuntimeRunUpdate", "RuntimeProbeAcp");
      Await.until(() -> harness.client().listExecutions("KandevAgentId = \"" + agent + "\" AND WorkflowId = \""
          + job.workflowId() + "\" AND ExecutionStatus = \"Completed\"").count() == 1, Duration.ofMinutes(1),
          "SQL visibility to list the update by KandevAgentId");
    }
  }

  /** Launch activities scheduled but not started: waiting in the host's launch queue (the cap is reached). */
  private long queuedLaunches(Collection<ResumeHandle> handles) {
    return handles.stream()
        .flatMap(h -> world.client().newUntypedWorkflowStub(h.workflowId()).describe().getRawDescription()
            .getPendingActivitiesList().stream())
        .filter(a -> a.getActivityType().getName().equals("LaunchAgent")
            && a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED)
        .count();
  }
}
