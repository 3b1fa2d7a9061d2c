package dev.kandev.recovery.worker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.agent.AgentHostSettings;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.MirrorSessionIdentityStore;
import dev.kandev.recovery.activities.store.MirrorExecutorsRunningStore;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.CredentialFixtures;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.GitHubAppStandIn;
import dev.kandev.recovery.worker.harness.LostLaunch;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.WorkerJvm;
import dev.kandev.recovery.worker.observability.RecoveryMetrics;
import dev.kandev.recovery.worker.temporal.SearchAttributeRegistrar;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host that stalls while a worker launches an agent: the worker is the production {@code worker}
 * command in a JVM of its own, paused with SIGSTOP while its agent loads the session and let go
 * with SIGCONT, on a real Temporal server. The agent keeps running and answers meanwhile; only its
 * worker does not hear it.
 */
public class LaunchStallTest {
  private static final String QUEUE = "kandev-recovery-stall";
  private static final String WORKSPACE = "ws-1";
  private static final String SESSION = "s1";
  private static final String TOKEN = "sess_stalled";

  @RegisterExtension final TestDatabase db = new TestDatabase();
  @TempDir Path tempDir;

  private DevTemporalServer server;
  private TemporalConnection connection;
  private ResumeClient resumes;
  private GitHubAppStandIn gitHubApp;
  /** The worker's settings; its agents get the PATH, HOME, … of this JVM, as a real worker's would. */
  private final Map<String, String> environment = new HashMap<>(AgentHostSettings.inheritedFrom(System.getenv()));
  private final List<AutoCloseable> workers = new ArrayList<>();
  private Path modeFile;
  private Path logDir;
  private Fixtures fixtures;
  private SessionStore sessions;
  private SessionIdentityStore identities;
  private ExecutorsRunningStore executors;
  private ResumeLockStore locks;

  @BeforeEach
  void setUp(TestInfo test) throws IOException {
    // Kept after the test (target/ of the module), for a look at what the worker JVMs did.
    logDir = Files.createDirectories(Path.of("target", "worker-jvm-logs",
        test.getTestMethod().orElseThrow().getName() + "-" + System.currentTimeMillis()));
    server = RealTemporalServer.start(tempDir.resolve("temporal"));
    connection = TemporalConnection.open(server.address(), "default", "test-client");
    SearchAttributeRegistrar.register(connection.service, "default");
    resumes = new ResumeClient(connection.client, QUEUE);
    gitHubApp = new GitHubAppStandIn();
    fixtures = db.fixtures();
    sessions = new MirrorSessionStore(Json.mapper());
    identities = new MirrorSessionIdentityStore();
    executors = new MirrorExecutorsRunningStore();
    locks = new ResumeLockStore();

    Path agentState = tempDir.resolve("agent-state");
    modeFile = tempDir.resolve("agent-mode");
    agentMode("normal");
    Path agentsFile = tempDir.resolve("agents.json");
    Files.writeString(agentsFile, Json.mapper().writeValueAsString(Map.of(TestAgent.AGENT_ID, Map.of(
        "argv", List.of("node", TestAgent.script().toString(), "--mode-file=" + modeFile),
        "env", Map.of("KANDEV_TEST_AGENT_STATE_DIR", agentState.toString())))));

    environment.put("KANDEV_DB_URL", TestDatabase.URL);
    environment.put("KANDEV_DB_USER", TestDatabase.USER);
    environment.put("KANDEV_DB_SCHEMA", db.database().schema());
    environment.put("TEMPORAL_ADDRESS", server.address());
    environment.put("KANDEV_TASK_QUEUE", QUEUE);
    environment.put("KANDEV_HOST", "test-host");
    environment.put("KANDEV_AGENTS_FILE", agentsFile.toString());
    environment.putAll(gitHubApp.environment());
    // Only the launch's own machinery may stop the agent here, not the periodic reaper.
    environment.put("KANDEV_AGENT_REAP_INTERVAL_SECONDS", "600");

    // A FAILED session whose agent once created provider session TOKEN, with one repository on GitHub.
    fixtures.sessionWithToken(SESSION, FAILED, TOKEN);
    Files.createDirectories(agentState);
    Files.writeString(agentState.resolve(TOKEN + ".json"), Json.mapper().writeValueAsString(Map.of(
        "id", TOKEN, "cwd", tempDir.toString(), "messages", List.of(
            Map.of("messageId", "m-1", "role", "user", "text", "add a widget"),
            Map.of("messageId", "m-2", "role", "agent", "text", "done")))));
    GitHubAppStandIn.backTask(new CredentialFixtures(fixtures), WORKSPACE, "t-" + SESSION, "github_app");
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = workers.size() - 1; i >= 0; i--) {
      workers.get(i).close();
    }
    for (AutoCloseable part : new AutoCloseable[] {connection, server, gitHubApp}) {
      if (part != null) {
        part.close();
      }
    }
  }

  /**
   * With the real numbers (60 s heartbeat timeout, a heartbeat sent every 5 s) a 40 s stall that
   * begins 25 s into the launch is survived. With the SDK's default throttle the next heartbeat
   * would have been due at 48 s and sent only when the stall ended, 65 s after the last one; with
   * the former 10 s timeout any stall over a few seconds failed the launch.
   */
  @Test
  void aLaunchSurvivesItsWorkerStallingForFortySeconds() throws Exception {
    WorkerJvm worker = startWorkerJvm("worker-a", Map.of());
    agentMode("hold-load");
    ResumeHandle resume = resumes.start(new ResumeRequest(SESSION, ResumeMode.RESUME, "user", "test"));
    awaitAgentHoldingLoad();
    Thread.sleep(Duration.ofSeconds(25).toMillis()); // the fault's timing, not a wait for a condition

    worker.pause();
    agentMode("normal"); // the agent loads the session while its worker is stalled
    Thread.sleep(Duration.ofSeconds(40).toMillis()); // the stall itself
    worker.resume();

    ResumeResult result = resume.await(Duration.ofMinutes(2));
    assertThat(result.outcome()).isEqualTo(ResumeOutcome.RESUMED);
    assertThat(result.loaded()).isTrue();
    assertThat(result.providerSessionId()).isEqualTo(TOKEN);
    assertThat(db.tx((Handle h) -> sessions.get(h, SESSION)).state()).isEqualTo(WAITING_FOR_INPUT);
    ExecutorRecord agent = db.tx(h -> executors.find(h, SESSION)).orElseThrow();
    assertThat(agent.status()).isEqualTo("running");
    assertThat(agent.workerInstance()).isEqualTo("worker-a");
    assertThat(ProcessHandle.of(agent.pid()).map(ProcessHandle::isAlive)).hasValue(true);
  }

  /**
   * A stall past the heartbeat timeout (shortened to 10 s so the test is quick): the other worker
   * compensates while the agent is in fact up and loaded on the stalled one. The session is back in
   * FAILED with its token and no lease, and the launch is withdrawn at once — the user's Resume is
   * not refused because of the stalled worker — and when that worker goes on, its late launch stops
   * its agent instead of taking the session over. The next Resume loads the same conversation.
   */
  @Test
  void aLaunchThatTimedOutWhileItsWorkerStalledLeavesNoClaimAndNoAgent() throws Exception {
    Map<String, String> shortTimeout = Map.of("KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS", "10");
    WorkerJvm stalled = startWorkerJvm("worker-a", shortTimeout);
    String snapshotBefore = snapshotJson();
    agentMode("hold-load");
    ResumeHandle resume = resumes.start(new ResumeRequest(SESSION, ResumeMode.RESUME, "user", "test"));
    awaitAgentHoldingLoad();
    long agentPid = db.tx(h -> executors.find(h, SESSION)).orElseThrow().pid();

    stalled.pause();
    agentMode("normal"); // the agent loads the session; its worker does not hear it
    startWorkerInProcess("worker-b", shortTimeout);
    ResumeFailure failure = awaitFailure(resume);

    LostLaunch.assertFailedOnItsHeartbeat(failure);
    assertThat(db.tx((Handle h) -> sessions.get(h, SESSION)).state()).isEqualTo(FAILED);
    assertThat(db.tx((Handle h) -> identities.read(h, SESSION))).isEqualTo(new SessionIdentity(TOKEN, TOKEN));
    assertThat(snapshotJson()).isEqualTo(snapshotBefore);
    assertThat(fixtures.count("SELECT count(*) FROM credential_leases WHERE session_id = ? AND revoked_at IS NULL",
        SESSION)).isZero();
    assertThat(db.tx((Handle h) -> locks.current(h, SESSION))).isEmpty();
    assertThat(ProcessHandle.of(agentPid).map(ProcessHandle::isAlive)).as("the agent is up, its worker stalled")
        .hasValue(true);
    ExecutorRecord withdrawn = db.tx(h -> executors.find(h, SESSION)).orElseThrow();
    assertThat(withdrawn.workerInstance()).isEqualTo("worker-a");
    assertThat(withdrawn.status()).isEqualTo("failed");
    assertThat(withdrawn.errorMessage()).contains("launch withdrawn");
    assertThat(db.tx((Handle h) -> executors.liveOwnerOtherThan(h, SESSION, "worker-b"))).as("no worker claims the session's agent").isEmpty();

    stalled.resume();
    Await.until(() -> ProcessHandle.of(agentPid).map(p -> !p.isAlive()).orElse(true), Duration.ofSeconds(30),
        "the resumed worker to stop the agent of the launch its resume gave up");
    assertThat(db.tx((Handle h) -> sessions.get(h, SESSION)).state()).isEqualTo(FAILED);
    assertThat(db.tx((Handle h) -> identities.read(h, SESSION))).isEqualTo(new SessionIdentity(TOKEN, TOKEN));
    assertThat(db.tx((Handle h) -> executors.find(h, SESSION)).orElseThrow().status()).isEqualTo("failed");

    ResumeResult next = resumes.start(new ResumeRequest(SESSION, ResumeMode.RESUME, "user", "test"))
        .await(Duration.ofMinutes(3));
    assertThat(next.loaded()).isTrue();
    assertThat(next.providerSessionId()).isEqualTo(TOKEN);
    assertThat(db.tx((Handle h) -> sessions.get(h, SESSION)).state()).isEqualTo(WAITING_FOR_INPUT);
  }

  private WorkerJvm startWorkerJvm(String instance, Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(environment);
    env.putAll(extra);
    env.put("KANDEV_WORKER_INSTANCE", instance);
    WorkerJvm worker = WorkerJvm.start(env, logDir.resolve(instance + ".log"));
    workers.add(worker);
    try {
      return worker.awaitReady(Duration.ofMinutes(2));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + worker.logTail(), e);
    }
  }

  /** A second worker, in this JVM, on the same queue: it stays up while the first one stalls. */
  private void startWorkerInProcess(String instance, Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(environment);
    env.putAll(extra);
    env.put("KANDEV_WORKER_INSTANCE", instance);
    Settings settings = Settings.fromEnvironment(env);
    Components components = Components.of(settings, db.database(), RecoveryMetrics.none());
    TemporalConnection own = TemporalConnection.open(server.address(), "default", instance);
    TemporalWorkers worker = TemporalWorkers.start(own.client, QUEUE, components.registrations());
    workers.add(() -> {
      worker.close();
      own.close();
      components.close();
    });
  }

  private void awaitAgentHoldingLoad() {
    Await.until(() -> Files.exists(Path.of(modeFile + ".held")), Duration.ofMinutes(1),
        "the agent to be asked for session/load");
    assertThat(db.tx((Handle h) -> executors.find(h, SESSION)).map(ExecutorRecord::status)).hasValue("starting");
  }

  private ResumeFailure awaitFailure(ResumeHandle resume) throws Exception {
    try {
      ResumeResult unexpected = resume.await(Duration.ofMinutes(4));
      throw new AssertionError("the resume succeeded: " + unexpected);
    } catch (ResumeFailedException e) {
      return e.failure();
    }
  }

  private void agentMode(String mode) {
    try {
      Files.writeString(modeFile, mode);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private String snapshotJson() {
    return fixtures.string("SELECT metadata -> 'git_credential_snapshot' FROM task_sessions WHERE id = ?", SESSION);
  }
}
