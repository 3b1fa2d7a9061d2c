package dev.kandev.recovery.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.acp.AgentHostSettings;
import dev.kandev.recovery.activities.acp.AgentProfile;
import dev.kandev.recovery.activities.acp.AgentProfiles;
import dev.kandev.recovery.activities.acp.PromptTurns;
import dev.kandev.recovery.activities.acp.TurnResult;
import dev.kandev.recovery.activities.store.Fence;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.testing.CredentialFixtures;
import dev.kandev.recovery.activities.testing.FakeGitHubServer;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import dev.kandev.recovery.workflows.testing.HistorySecrets;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testserver.TestServer;
import io.temporal.worker.WorkerFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * The real worker on a Temporal test server: PostgreSQL (a schema of its own), the credential
 * broker with a GitHub stand-in, and the fault-injecting test agent as the session's agent. The
 * agent's mode is read from a file at each start, so a test can break the next process of the same
 * profile and heal it again.
 */
final class ResumeHarness implements AutoCloseable {
  static final String QUEUE = "kandev-recovery-test";
  static final String WORKSPACE = "ws-1";

  final TestDatabase db;
  final Fixtures fixtures;
  final CredentialFixtures credentials;
  private final GitHubAppStandIn gitHubApp;
  final FakeGitHubServer github;
  /** The Temporal server, reached over real gRPC on a loopback port: the SDK's test server, or a real one. */
  private final AutoCloseable server;
  private final TemporalConnection clientConnection;
  final WorkflowClient client;
  final ResumeClient resumes;
  final Path agentState;
  private final Path modeFile;
  /** The worker's settings; its agents get the PATH, HOME, … of this JVM, as a real worker's would. */
  private final Map<String, String> environment = new HashMap<>(AgentHostSettings.inheritedFrom(System.getenv()));
  private final AgentProfiles agents;
  private final String target;
  private final UnaryOperator<Object> decorate;
  /** The worker process that runs now; {@link #replaceWorker(String)} kills it and starts another. */
  private WorkerProcess worker;
  private final boolean replaceableWorker;
  private final Set<String> startedSessions = new LinkedHashSet<>();
  private final List<String> knownSecrets = new ArrayList<>();

  ResumeHarness(TestDatabase db, Path tempDir) {
    this(db, tempDir, UnaryOperator.identity());
  }

  /** @param decorate wraps the activity implementations (to observe or to inject faults) */
  ResumeHarness(TestDatabase db, Path tempDir, UnaryOperator<Object> decorate) {
    this(db, tempDir, decorate, false);
  }

  /**
   * A harness on a real Temporal server (the CLI's dev server) whose worker a test may kill and
   * replace ({@link #replaceWorker(String)}): a real server hands a dead worker's sticky workflow
   * task back to the normal queue, which the SDK's test server never does.
   */
  static ResumeHarness withReplaceableWorker(TestDatabase db, Path tempDir, UnaryOperator<Object> decorate) {
    return new ResumeHarness(db, tempDir, decorate, true);
  }

  private ResumeHarness(TestDatabase db, Path tempDir, UnaryOperator<Object> decorate, boolean replaceableWorker) {
    this.replaceableWorker = replaceableWorker;
    this.db = db;
    this.fixtures = db.fixtures();
    this.credentials = new CredentialFixtures(fixtures);
    this.agentState = tempDir.resolve("agent-state");
    this.modeFile = tempDir.resolve("agent-mode");
    agentMode("normal");
    this.gitHubApp = new GitHubAppStandIn();
    this.github = gitHubApp.server;
    this.decorate = decorate;
    environment.put("KANDEV_DB_SCHEMA", db.database().schema());
    environment.put("KANDEV_HOST", "test-host");
    environment.put("KANDEV_ACP_INITIALIZE_TIMEOUT_SECONDS", "20");
    environment.put("KANDEV_ACP_SESSION_LOAD_TIMEOUT_SECONDS", "20");
    environment.put("KANDEV_AGENT_REAP_INTERVAL_SECONDS", "1");
    // A dead worker's launch is given up after 10 s instead of a minute (LaunchStallTest uses the real 60 s).
    environment.put("KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS", "10");
    environment.putAll(gitHubApp.environment());
    this.agents = AgentProfiles.of(new AgentProfile(TestAgent.AGENT_ID,
        List.of("node", TestAgent.script().toString(), "--mode-file=" + modeFile),
        Map.of("KANDEV_TEST_AGENT_STATE_DIR", agentState.toString()), null));
    if (replaceableWorker) {
      DevTemporalServer real = RealTemporalServer.start(tempDir.resolve("temporal"));
      this.server = real;
      this.target = real.address();
    } else {
      int port = RealTemporalServer.freePort();
      this.server = TestServer.createPortBoundServer(port, false);
      this.target = "127.0.0.1:" + port;
    }
    this.clientConnection = TemporalConnection.open(target, "default", "test-client");
    SearchAttributeRegistrar.register(clientConnection.service, "default");
    this.client = clientConnection.client;
    this.resumes = new ResumeClient(client, QUEUE);
    this.worker = new WorkerProcess("worker-a");
  }

  /** The real parts of the worker process that runs now. */
  Components components() {
    return worker.components;
  }

  /**
   * Kills the running worker process as {@code kill -9} would — it reports nothing more to
   * Temporal, its activity threads stop mid-step and its agents die with it — and starts another
   * one on the same task queue; returns the new worker's parts.
   */
  Components replaceWorker(String instance) {
    if (!replaceableWorker) {
      throw new IllegalStateException("this harness's worker is not replaceable: use withReplaceableWorker");
    }
    worker.kill();
    worker = new WorkerProcess(instance);
    return worker.components;
  }

  /** One worker process: its own real parts, its own Temporal connection, its worker. */
  private final class WorkerProcess {
    final Components components;
    final TemporalConnection connection;
    final WorkerFactory factory;

    WorkerProcess(String instance) {
      Map<String, String> own = new HashMap<>(environment);
      own.put("KANDEV_WORKER_INSTANCE", instance);
      this.components = new Components(Settings.fromEnvironment(own), db.database(), BuiltInAgents.KANDEV, agents);
      this.connection = TemporalConnection.open(target, "default", instance);
      this.factory = WorkerFactory.newInstance(connection.client, RecoveryWorker.factoryOptions());
      components.register(factory::newWorker, QUEUE, decorate);
      factory.start();
    }

    void kill() {
      connection.service.shutdownNow();
      factory.shutdownNow();
      components.close();
    }

    void stop() {
      factory.shutdownNow();
      connection.close();
      components.close();
    }
  }

  /** The mode the next agent process of the session's profile starts in. */
  void agentMode(String mode) {
    try {
      Files.createDirectories(modeFile.getParent());
      Files.writeString(modeFile, mode);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A task in {@link #WORKSPACE} with one session of the test agent, in {@code state}, never launched. */
  void newSession(String sessionId, SessionState state) {
    fixtures.task(taskOf(sessionId), WORKSPACE, "REVIEW").session(sessionId, taskOf(sessionId), TestAgent.AGENT_ID, state, "{}");
  }

  /** A prompt turn with the session's agent on the worker that runs now, as Kandev runs one. */
  TurnResult prompt(String sessionId, String text) {
    return new PromptTurns(components().agentHost(), components().database().transactions()).prompt(sessionId, text);
  }

  static String taskOf(String sessionId) {
    return "t-" + sessionId;
  }

  /**
   * A session whose agent really created its provider session (so a later {@code session/load}
   * finds it), whose agent process is gone and which now is in {@code state}; returns the token.
   */
  String establishedSession(String sessionId, SessionState state) throws TimeoutException {
    newSession(sessionId, SessionState.CREATED);
    ResumeResult first = resume(sessionId, ResumeMode.START_FRESH);
    components().agentHost().stop(sessionId);
    if (state != SessionState.WAITING_FOR_INPUT) {
      var moved = db.tx(h -> components().sessions.transition(h,
          sessionId, Set.of(SessionState.WAITING_FOR_INPUT), state, "test setup", "agent process exited", Fence.none()));
      assertThat(moved.won()).as("set up %s", state).isTrue();
    }
    return first.providerSessionId();
  }

  /** Links acme/widgets to the session's task and selects the workspace's credential policy. */
  void gitHubBacked(String sessionId, String policy) {
    GitHubAppStandIn.backTask(credentials, WORKSPACE, taskOf(sessionId), policy);
  }

  void selectPolicy(String policy) {
    GitHubAppStandIn.selectPolicy(credentials, WORKSPACE, policy);
  }

  ResumeResult resume(String sessionId, ResumeMode mode) throws TimeoutException {
    return start(sessionId, mode).await(Duration.ofMinutes(2));
  }

  ResumeHandle start(String sessionId, ResumeMode mode) {
    startedSessions.add(sessionId);
    return resumes.start(new ResumeRequest(sessionId, mode, "user", "test"));
  }

  /** The history of the session's latest resume. */
  WorkflowExecutionHistory history(String sessionId) {
    return client.fetchHistory(ResumeRequest.workflowId(sessionId));
  }

  /** Each step of the session's latest resume, as {@link HistorySteps} names them. */
  List<String> activityWorkers(String sessionId) {
    return HistorySteps.of(history(sessionId));
  }

  /**
   * Every resume's history is free of the secrets this harness can know: the installation tokens
   * GitHub issued, the App's private key, and any lease token a test read from an agent.
   */
  void assertNoSecretsInHistories() {
    List<String> secrets = new ArrayList<>(knownSecrets);
    github.issued().forEach(t -> secrets.add(t.token()));
    secrets.add(gitHubApp.privateKeyLine);
    for (String sessionId : startedSessions) {
      HistorySecrets.assertNoSecrets(client, ResumeRequest.workflowId(sessionId), secrets);
    }
  }

  /** A secret a test learned (e.g. the lease token in an agent's environment). */
  void knownSecret(String secret) {
    knownSecrets.add(secret);
  }

  ResumeFailure resumeFailing(String sessionId, ResumeMode mode) throws TimeoutException {
    try {
      ResumeResult unexpected = resume(sessionId, mode);
      throw new AssertionError("the resume succeeded: " + unexpected);
    } catch (ResumeFailedException e) {
      return e.failure();
    }
  }

  SessionState state(String sessionId) {
    return db.tx(h -> components().sessions.get(h, sessionId)).state();
  }

  SessionIdentity identity(String sessionId) {
    return db.tx(h -> components().identities.read(h, sessionId));
  }

  /** The session's state transitions, oldest first, as "FROM>TO". */
  List<String> transitions(String sessionId) {
    return fixtures.strings(
        "SELECT from_state || '>' || to_state FROM session_events WHERE session_id = ? ORDER BY id", sessionId);
  }

  long liveLeases(String sessionId) {
    return fixtures.count("SELECT count(*) FROM credential_leases WHERE session_id = ? AND revoked_at IS NULL", sessionId);
  }

  boolean lockHeld(String sessionId) {
    return db.tx(h -> components().locks.current(h, sessionId)).isPresent();
  }

  String snapshotJson(String sessionId) {
    return fixtures.string("SELECT metadata -> 'git_credential_snapshot' FROM task_sessions WHERE id = ?", sessionId);
  }

  @Override
  public void close() {
    try {
      assertNoSecretsInHistories();
    } finally {
      shutdown();
    }
  }

  private void shutdown() {
    worker.stop();
    clientConnection.close();
    try {
      server.close();
    } catch (Exception e) {
      throw new IllegalStateException("could not stop the Temporal server", e);
    } finally {
      gitHubApp.close();
    }
  }
}
