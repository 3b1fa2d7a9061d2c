package dev.kandev.recovery.worker.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.CredentialFixtures;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TempFolders;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * kandev-recovery as users run it, for black-box tests: {@code dev} (the real Temporal dev server
 * with the worker) and {@code worker} processes of the packaged jar, one PostgreSQL schema, the
 * project's test agent, and a GitHub App stand-in. The test starts resumes through the public
 * client and reads the database to check the outcome. A JUnit 5 extension, fresh for each test:
 * {@code @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();}.
 */
public final class RecoveryCluster implements BeforeEachCallback, AfterEachCallback {
  public static final String HOST = "it-host";
  public static final String WORKSPACE = "ws-1";

  private final TestDatabase db;
  private final Map<String, KandevProcess> processes = new LinkedHashMap<>();
  private final Map<String, String> settings = new HashMap<>();
  public Fixtures fixtures;
  public CredentialFixtures credentials;
  public GitHubAppStandIn gitHubApp;
  public int temporalPort;
  public int uiPort;
  private Path dir;
  private TestAgentFiles agent;
  private Path agentsFile;
  private TemporalConnection connection;

  /** On our mirror layout. */
  public RecoveryCluster() {
    this(StoreLayout.Kind.MIRROR);
  }

  /** With Kandev's rows in {@code layout}: our mirror, or Kandev's own tables (a fixture of Kandev's schema). */
  public RecoveryCluster(StoreLayout.Kind layout) {
    this.db = new TestDatabase(layout);
  }

  /** The same on the PostgreSQL at {@code url} (e.g. a {@code LocalPostgres} the test may restart). */
  public RecoveryCluster(StoreLayout.Kind layout, java.util.function.Supplier<String> url) {
    this.db = new TestDatabase(url, layout);
  }

  /** The test database (our schema and, in the kandev layout, Kandev's). */
  public TestDatabase database() {
    return db;
  }

  private KandevLayoutStores stores() {
    return KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    RealTemporalServer.cli(); // without one, dev would fall back to the in-memory server: fail with the setup command
    db.beforeEach(context);
    dir = Files.createTempDirectory("kandev-cluster-");
    fixtures = db.fixtures();
    credentials = new CredentialFixtures(fixtures);
    gitHubApp = new GitHubAppStandIn();
    temporalPort = RealTemporalServer.freePort();
    uiPort = RealTemporalServer.freePort();
    agent = new TestAgentFiles(dir);
    agent.mode("normal");
    agentsFile = agent.profile("agents.json", HOST);
  }

  /** A setting every process of this cluster started from now on gets (workers must agree on some). */
  public void setting(String name, String value) {
    settings.put(name, value);
  }

  /** This test's folder: state, logs, agent sessions. */
  public Path dir() {
    return dir;
  }

  /** Starts {@code dev} (server and worker) as worker instance {@code instance}; returns once it is ready. */
  public KandevProcess dev(String instance) {
    return dev(instance, Map.of());
  }

  /** The same with {@code extra} in its environment. */
  public KandevProcess dev(String instance, Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(environment(instance));
    env.putAll(extra);
    return started(instance, KandevProcess.start(instance, env, dir.resolve("logs"),
        "dev", "--temporal-port", Integer.toString(temporalPort), "--ui-port", Integer.toString(uiPort)));
  }

  /** Starts a {@code worker} process against the dev server; returns once it is ready. */
  public KandevProcess worker(String instance) {
    Map<String, String> env = new HashMap<>(environment(instance));
    env.put("TEMPORAL_ADDRESS", temporalAddress());
    return started(instance, KandevProcess.start(instance, env, dir.resolve("logs"), "worker"));
  }

  /** Starts a {@code worker} process against the dev server with {@code extra} in its environment. */
  public KandevProcess worker(String instance, Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(environment(instance));
    env.put("TEMPORAL_ADDRESS", temporalAddress());
    env.putAll(extra);
    return started(instance, KandevProcess.start(instance, env, dir.resolve("logs"), "worker"));
  }

  /**
   * Starts a {@code worker} process of executor host {@code host} against the dev server: a host of
   * its own, so its own state folder (its predecessor file), and agents that record {@code host} in
   * the launch log ({@link #agentEvents}). {@code settings} are added to its environment.
   */
  public KandevProcess worker(String instance, String host, Map<String, String> settings) {
    Map<String, String> env = new HashMap<>(environment(instance));
    env.put("TEMPORAL_ADDRESS", temporalAddress());
    env.put("KANDEV_HOST", host);
    env.put("KANDEV_STATE_DIR", dir.resolve("state-" + host).toString());
    env.put("KANDEV_AGENTS_FILE", agent.profile("agents-" + host + ".json", host).toString());
    env.putAll(settings);
    return started(instance, KandevProcess.start(instance, env, dir.resolve("logs"), "worker"));
  }

  /** What the agents of this cluster recorded, in the order they wrote it. */
  public List<AgentEvent> agentEvents() {
    return agent.events(AgentEvent.class);
  }

  /**
   * One line of the test agent's launch log: {@code start} (the process started on {@code host}),
   * {@code session} (it created or loaded provider session {@code sessionId}), {@code stop}.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record AgentEvent(String event, String host, long pid, long at, String sessionId, Boolean loaded, String by) {}

  /** The activities of the run ({@code runId} null: the latest run), in the order they were scheduled. */
  public List<ActivityRun> activities(String workflowId, String runId) {
    Map<Long, ActivityRun> runs = new LinkedHashMap<>();
    var history = runId == null ? client().fetchHistory(workflowId) : client().fetchHistory(workflowId, runId);
    for (HistoryEvent event : history.getEvents()) {
      Instant at = Instant.ofEpochSecond(event.getEventTime().getSeconds(), event.getEventTime().getNanos());
      if (event.hasActivityTaskScheduledEventAttributes()) {
        var scheduled = event.getActivityTaskScheduledEventAttributes();
        runs.put(event.getEventId(), new ActivityRun(
            scheduled.getActivityType().getName(), scheduled.getTaskQueue().getName(), null, null, null));
      } else if (event.hasActivityTaskStartedEventAttributes()) {
        var started = event.getActivityTaskStartedEventAttributes();
        runs.computeIfPresent(started.getScheduledEventId(),
            (id, run) -> new ActivityRun(run.type(), run.taskQueue(), started.getIdentity(), at, null));
      } else {
        closedActivity(event).ifPresent(scheduledId -> runs.computeIfPresent(scheduledId,
            (id, run) -> new ActivityRun(run.type(), run.taskQueue(), run.worker(), run.started(), at)));
      }
    }
    return List.copyOf(runs.values());
  }

  private static Optional<Long> closedActivity(HistoryEvent event) {
    if (event.hasActivityTaskCompletedEventAttributes()) {
      return Optional.of(event.getActivityTaskCompletedEventAttributes().getScheduledEventId());
    }
    if (event.hasActivityTaskFailedEventAttributes()) {
      return Optional.of(event.getActivityTaskFailedEventAttributes().getScheduledEventId());
    }
    if (event.hasActivityTaskTimedOutEventAttributes()) {
      return Optional.of(event.getActivityTaskTimedOutEventAttributes().getScheduledEventId());
    }
    if (event.hasActivityTaskCanceledEventAttributes()) {
      return Optional.of(event.getActivityTaskCanceledEventAttributes().getScheduledEventId());
    }
    return Optional.empty();
  }

  /** Binds the session to executor host {@code host}, as a starter does. */
  public void bindHost(String sessionId, String host) {
    db.run(h -> stores().sessions().bindHost(h, sessionId, host));
  }

  /** Adds a process this cluster stops at its end, once it is ready. */
  public KandevProcess started(String instance, KandevProcess process) {
    processes.put(instance, process);
    // A worker prints it after its restart recovery started every lost session's resume (200 in MassRecoveryIT).
    return process.awaitOutput("Ready.", Duration.ofMinutes(5));
  }

  /** Every setting the processes of this cluster share, and the worker instance of one. */
  public Map<String, String> environment(String instance) {
    Map<String, String> env = new HashMap<>(gitHubApp.environment());
    env.put("KANDEV_DB_URL", db.url());
    env.put("KANDEV_DB_USER", TestDatabase.USER);
    env.put("KANDEV_DB_SCHEMA", db.database().schema());
    env.put("KANDEV_STORE_LAYOUT", db.layout().isKandev() ? "kandev" : "mirror");
    env.put("KANDEV_KANDEV_SCHEMA", db.layout().kandevSchema());
    env.put("KANDEV_STATE_DIR", stateDir().toString());
    env.put("KANDEV_AGENTS_FILE", agentsFile.toString());
    env.put("KANDEV_HOST", HOST);
    env.put("KANDEV_WORKER_INSTANCE", instance);
    env.put("KANDEV_AGENT_REAP_INTERVAL_SECONDS", "1");
    env.put("KANDEV_ACP_INITIALIZE_TIMEOUT_SECONDS", "120");
    // A killed worker's launch is given up after 10 s instead of a minute (LaunchStallTest uses the real 60 s).
    env.put("KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS", "10");
    env.putAll(settings);
    return env;
  }

  /** The settings of a CLI command against this cluster. */
  public Map<String, String> cliEnvironment() {
    Map<String, String> env = environment("cli");
    env.put("TEMPORAL_ADDRESS", temporalAddress());
    return env;
  }

  public Path stateDir() {
    return dir.resolve("state");
  }

  public Path logDir() {
    return dir.resolve("logs");
  }

  public String temporalAddress() {
    return "127.0.0.1:" + temporalPort;
  }

  public KandevProcess process(String instance) {
    return Optional.ofNullable(processes.get(instance)).orElseThrow(() -> new IllegalArgumentException("no process " + instance));
  }

  /** {@code kill -9} of the process that is worker instance {@code instance}. */
  public void kill(String instance) {
    process(instance).kill();
    processes.remove(instance);
  }

  public WorkflowClient client() {
    if (connection == null) {
      connection = TemporalConnection.open(temporalAddress(), "default", "it-client");
    }
    return connection.client;
  }

  public ResumeClient resumes() {
    return new ResumeClient(client(), "kandev-recovery");
  }

  public ResumeHandle start(String sessionId, ResumeMode mode) {
    return resumes().start(new ResumeRequest(sessionId, mode, "user", "it"));
  }

  /** The mode the next agent process starts in ({@code hold-initialize} holds it in ACP initialize). */
  public void agentMode(String mode) {
    agent.mode(mode);
  }

  /** This test's PostgreSQL schema, the one the processes use. */
  public String schema() {
    return db.database().schema();
  }

  /** The file {@link #agentMode} writes, for a test that sets the mode from another process. */
  public Path agentModeFile() {
    return agent.modeFile();
  }

  /** A task with one session of the test agent, in {@code state}, never launched. */
  public void newSession(String sessionId, SessionState state) {
    fixtures.task(taskOf(sessionId), WORKSPACE, "REVIEW").session(sessionId, taskOf(sessionId), TestAgent.AGENT_ID, state, "{}");
  }

  public static String taskOf(String sessionId) {
    return "t-" + sessionId;
  }

  /**
   * A session whose agent created its provider session, then failed: FAILED, its agent stopped
   * (by the worker's reaper), its token stored. Returns the token.
   */
  public String failedSessionWithToken(String sessionId) throws TimeoutException {
    newSession(sessionId, SessionState.CREATED);
    String token = start(sessionId, ResumeMode.START_FRESH).await(Duration.ofMinutes(2)).providerSessionId();
    var moved = db.tx(h -> sessions().transition(h, sessionId, Set.of(SessionState.WAITING_FOR_INPUT), SessionState.FAILED,
        "test setup", "agent process exited", Fence.none()));
    assertThat(moved.won()).isTrue();
    Await.until(() -> executor(sessionId).map(e -> !TestStores.claimsLiveProcess(e)).orElse(false), Duration.ofSeconds(30),
        "the worker to stop the agent of the failed session");
    return token;
  }

  /** Links acme/widgets to the session's task and selects the workspace's credential policy. */
  public void gitHubBacked(String sessionId, String policy) {
    GitHubAppStandIn.backTask(credentials, WORKSPACE, taskOf(sessionId), policy);
  }

  /** Runs store operations in one transaction on the cluster's database. */
  public <T> T tx(Transactions.Work<T> work) {
    return db.tx(work);
  }

  public SessionStore sessions() {
    return stores().sessions();
  }

  public SessionState state(String sessionId) {
    return db.tx(h -> sessions().get(h, sessionId)).state();
  }

  public SessionIdentity identity(String sessionId) {
    return db.tx(h -> stores().identities().read(h, sessionId));
  }

  public Optional<ExecutorRecord> executor(String sessionId) {
    return db.tx(h -> stores().executors().find(h, sessionId));
  }

  /** The session's agent once its process was spawned and it is in its ACP handshake. */
  public ExecutorRecord awaitAgentStarting(String sessionId) {
    Await.until(() -> executor(sessionId).map(e -> e.status().equals("starting") && e.pid() != null).orElse(false),
        Duration.ofMinutes(1), "the agent of " + sessionId + " to be starting");
    return executor(sessionId).orElseThrow();
  }

  public boolean lockHeld(String sessionId) {
    return fixtures.count("SELECT count(*) FROM resume_locks WHERE session_id = ?", sessionId) > 0;
  }

  /** The session's state transitions, oldest first, as "FROM>TO". */
  public List<String> transitions(String sessionId) {
    return fixtures.strings(
        "SELECT from_state || '>' || to_state FROM session_events WHERE session_id = ? ORDER BY id", sessionId);
  }

  /** The pending activity of the run that has started on a worker, as Temporal describes it. */
  public Optional<PendingActivityInfo> startedActivity(ResumeHandle resume) {
    WorkflowStub stub = client().newUntypedWorkflowStub(resume.workflowId(), Optional.of(resume.runId()), Optional.empty());
    return stub.describe().getRawDescription().getPendingActivitiesList().stream()
        .filter(a -> a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED)
        .findFirst();
  }

  public static ResumeFailure awaitFailure(ResumeHandle resume, Duration within) throws TimeoutException {
    try {
      ResumeResult unexpected = resume.await(within);
      throw new AssertionError("the resume succeeded: " + unexpected);
    } catch (ResumeFailedException e) {
      return e.failure();
    }
  }

  /**
   * Stops the processes as a service manager would ({@code dev} stops its server), then anything
   * still running on this test's folder (a server a killed dev left behind), and drops the schema
   * and the folder.
   */
  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      if (connection != null) {
        connection.close();
      }
      for (KandevProcess process : processes.values()) {
        if (process.isAlive()) {
          try {
            process.terminate(Duration.ofSeconds(60));
          } catch (AssertionError e) {
            process.close(); // the rest are stopped all the same; the failure is the test's
          }
        }
      }
    } finally {
      TempFolders.killProcessesUsing(dir);
      gitHubApp.close();
      db.afterEach(context);
      TempFolders.delete(dir);
    }
  }
}
