package dev.kandev.recovery.worker.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.agent.AgentHostSettings;
import dev.kandev.recovery.activities.agent.AgentProfiles;
import dev.kandev.recovery.activities.agent.PromptTurns;
import dev.kandev.recovery.activities.agent.TurnResult;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.testing.CredentialFixtures;
import dev.kandev.recovery.activities.testing.FakeGitHubServer;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TempFolders;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.temporal.SearchAttributeRegistrar;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.testing.HistorySecrets;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testserver.TestServer;
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
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real worker on a Temporal test server: PostgreSQL (a schema of its own), the credential
 * broker with a GitHub stand-in, and the fault-injecting test agent as the session's agent. The
 * agent's mode is read from a file at each start, so a test can break the next process of the same
 * profile and heal it again.
 *
 * <p>A JUnit extension: it starts before each test and stops after it, checking that no resume's
 * history holds a secret. Register it after the {@link TestDatabase} it uses:
 * {@code @RegisterExtension @Order(2) final ResumeHarness harness = new ResumeHarness(db);}.
 */
public final class ResumeHarness implements BeforeEachCallback, AfterEachCallback {
  public static final String QUEUE = "kandev-recovery-test";
  public static final String WORKSPACE = "ws-1";

  private final TestDatabase db;
  private final UnaryOperator<Object> decorate;
  private final boolean replaceableWorker;
  private final Set<String> startedSessions = new LinkedHashSet<>();
  private final List<String> knownSecrets = new ArrayList<>();
  /** The worker's settings; its agents get the PATH, HOME, … of this JVM, as a real worker's would. */
  private final Map<String, String> environment = new HashMap<>(AgentHostSettings.inheritedFrom(System.getenv()));

  // What beforeEach starts.
  /** The stores of the test database's layout (our mirror or Kandev's tables), for the tests' reads and set-ups. */
  private SessionStore sessions;
  private SessionIdentityStore identities;
  private final ResumeLockStore locks = new ResumeLockStore();
  private Fixtures fixtures;
  private CredentialFixtures credentials;
  private FakeGitHubServer github;
  private WorkflowClient client;
  private ResumeClient resumes;
  private Path agentState;
  private GitHubAppStandIn gitHubApp;
  private Path modeFile;
  private AgentProfiles agents;
  /** The Temporal server, reached over real gRPC on a loopback port: the SDK's test server, or a real one. */
  private AutoCloseable server;
  private String target;
  private TemporalConnection clientConnection;
  /** The worker process that runs now; {@link #replaceWorker(String)} kills it and starts another. */
  private HarnessWorker worker;

  public ResumeHarness(TestDatabase db) {
    this(db, UnaryOperator.identity());
  }

  /** @param decorate wraps the activity implementations (to observe or to inject faults) */
  public ResumeHarness(TestDatabase db, UnaryOperator<Object> decorate) {
    this(db, decorate, false);
  }

  /**
   * A harness on a real Temporal server (the CLI's dev server) whose worker a test may kill and
   * replace ({@link #replaceWorker(String)}): a real server hands a dead worker's sticky workflow
   * task back to the normal queue, which the SDK's test server never does.
   */
  public static ResumeHarness withReplaceableWorker(TestDatabase db, UnaryOperator<Object> decorate) {
    return new ResumeHarness(db, decorate, true);
  }

  private ResumeHarness(TestDatabase db, UnaryOperator<Object> decorate, boolean replaceableWorker) {
    this.db = db;
    this.decorate = decorate;
    this.replaceableWorker = replaceableWorker;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    Path folder = TempFolders.create(context, "kandev-resume-harness-");
    fixtures = db.fixtures();
    KandevLayoutStores stores = KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE);
    sessions = stores.sessions();
    identities = stores.identities();
    credentials = new CredentialFixtures(fixtures);
    agentState = folder.resolve("agent-state");
    modeFile = folder.resolve("agent-mode");
    agentMode("normal");
    agents = AgentProfiles.of(TestAgent.switchable(modeFile, agentState));
    gitHubApp = new GitHubAppStandIn();
    github = gitHubApp.server;
    environment.put("KANDEV_DB_SCHEMA", db.database().schema());
    environment.put("KANDEV_STORE_LAYOUT", db.layout().isKandev() ? "kandev" : "mirror");
    environment.put("KANDEV_KANDEV_SCHEMA", db.layout().kandevSchema());
    environment.put("KANDEV_HOST", "test-host");
    environment.put("KANDEV_ACP_INITIALIZE_TIMEOUT_SECONDS", "20");
    environment.put("KANDEV_ACP_SESSION_LOAD_TIMEOUT_SECONDS", "20");
    environment.put("KANDEV_AGENT_REAP_INTERVAL_SECONDS", "1");
    // A dead worker's launch is given up after 10 s instead of a minute (LaunchStallTest uses the real 60 s).
    environment.put("KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS", "10");
    environment.putAll(gitHubApp.environment());
    if (replaceableWorker) {
      DevTemporalServer real = RealTemporalServer.start(folder.resolve("temporal"));
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
    this.worker = startWorker("worker-a");
  }

  @Override
  public void afterEach(ExtensionContext context) {
    try {
      if (client != null) {
        assertNoSecretsInHistories();
      }
    } finally {
      shutdown();
    }
  }

  public TestDatabase db() {
    return db;
  }

  /** The stores the worker writes, for the tests' own reads and writes (they hold no state). */
  public SessionStore sessions() {
    return sessions;
  }

  public SessionIdentityStore identities() {
    return identities;
  }

  public ResumeLockStore locks() {
    return locks;
  }

  public Fixtures fixtures() {
    return fixtures;
  }

  public CredentialFixtures credentials() {
    return credentials;
  }

  /** The GitHub stand-in the worker's credential broker asks for installation tokens. */
  public FakeGitHubServer github() {
    return github;
  }

  /** The test's own client (no worker behind it; see {@link #workerClient()}). */
  public WorkflowClient client() {
    return client;
  }

  public ResumeClient resumes() {
    return resumes;
  }

  /** The folder where the test agent keeps its provider sessions. */
  public Path agentState() {
    return agentState;
  }

  private HarnessWorker startWorker(String instance) {
    return new HarnessWorker(instance, environment, db.database(), agents, target, QUEUE, decorate);
  }

  /** The real parts of the worker process that runs now. */
  public Components components() {
    return worker.components;
  }

  /**
   * Kills the running worker process as {@code kill -9} would ({@link HarnessWorker#kill()}) and
   * starts another one on the same task queue; returns the new worker's parts.
   */
  public Components replaceWorker(String instance) {
    if (!replaceableWorker) {
      throw new IllegalStateException("this harness's worker is not replaceable: use withReplaceableWorker");
    }
    worker.kill();
    worker = startWorker(instance);
    return worker.components;
  }

  /** The client of the worker that runs now (the test's own {@link #client()} has no worker). */
  public WorkflowClient workerClient() {
    return worker.client();
  }

  /** The file {@link #agentMode} writes; {@code hold-load} puts {@code <file>.held} beside it while it holds. */
  public Path agentModeFile() {
    return modeFile;
  }

  /** The mode the next agent process of the session's profile starts in. */
  public void agentMode(String mode) {
    try {
      Files.createDirectories(modeFile.getParent());
      Files.writeString(modeFile, mode);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A task in {@link #WORKSPACE} with one session of the test agent, in {@code state}, never launched. */
  public void newSession(String sessionId, SessionState state) {
    fixtures.task(taskOf(sessionId), WORKSPACE, "REVIEW").session(sessionId, taskOf(sessionId), TestAgent.AGENT_ID, state, "{}");
  }

  /** A prompt turn with the session's agent on the worker that runs now, as Kandev runs one. */
  public TurnResult prompt(String sessionId, String text) {
    return new PromptTurns(components().agentHost(), db.transactions(), db.layout()).prompt(sessionId, text);
  }

  public static String taskOf(String sessionId) {
    return "t-" + sessionId;
  }

  /**
   * A session whose agent really created its provider session (so a later {@code session/load}
   * finds it), whose agent process is gone and which now is in {@code state}; returns the token.
   */
  public String establishedSession(String sessionId, SessionState state) throws TimeoutException {
    newSession(sessionId, SessionState.CREATED);
    ResumeResult first = resume(sessionId, ResumeMode.START_FRESH);
    components().agentHost().stop(sessionId);
    if (state != SessionState.WAITING_FOR_INPUT) {
      var moved = db.tx(h -> sessions.transition(h,
          sessionId, Set.of(SessionState.WAITING_FOR_INPUT), state, "test setup", "agent process exited", Fence.none()));
      assertThat(moved.won()).as("set up %s", state).isTrue();
    }
    return first.providerSessionId();
  }

  /** Links acme/widgets to the session's task and selects the workspace's credential policy. */
  public void gitHubBacked(String sessionId, String policy) {
    GitHubAppStandIn.backTask(credentials, WORKSPACE, taskOf(sessionId), policy);
  }

  public void selectPolicy(String policy) {
    GitHubAppStandIn.selectPolicy(credentials, WORKSPACE, policy);
  }

  public ResumeResult resume(String sessionId, ResumeMode mode) throws TimeoutException {
    return start(sessionId, mode).await(Duration.ofMinutes(2));
  }

  public ResumeHandle start(String sessionId, ResumeMode mode) {
    startedSessions.add(sessionId);
    return resumes.start(new ResumeRequest(sessionId, mode, "user", "test"));
  }

  /** The history of the session's latest resume. */
  public WorkflowExecutionHistory history(String sessionId) {
    return client.fetchHistory(ResumeRequest.workflowId(sessionId));
  }

  /** Each step of the session's latest resume, as {@link HistorySteps} names them. */
  public List<String> activityWorkers(String sessionId) {
    return HistorySteps.of(history(sessionId));
  }

  /**
   * Every resume's history is free of the secrets this harness can know: the installation tokens
   * GitHub issued, the App's private key, and any lease token a test read from an agent.
   */
  /** The session is back in {@code prior} with the same token, no lease, no lock, no STARTING. */
  public void assertRecoverable(String sessionId, SessionState prior, String token) {
    assertThat(state(sessionId)).isEqualTo(prior);
    assertThat(identity(sessionId)).isEqualTo(new SessionIdentity(token, token));
    assertThat(transitions(sessionId)).last().isEqualTo("STARTING>" + prior);
    assertThat(liveLeases(sessionId)).isZero();
    assertThat(lockHeld(sessionId)).isFalse();
    assertThat(components().agentHost().isRunning(sessionId)).isFalse();
  }

  public void assertNoSecretsInHistories() {
    List<String> secrets = new ArrayList<>(knownSecrets);
    github.issued().forEach(t -> secrets.add(t.token()));
    secrets.add(gitHubApp.privateKeyLine);
    for (String sessionId : startedSessions) {
      HistorySecrets.assertNoSecrets(client, ResumeRequest.workflowId(sessionId), secrets);
    }
  }

  /** A secret a test learned (e.g. the lease token in an agent's environment). */
  public void knownSecret(String secret) {
    knownSecrets.add(secret);
  }

  public ResumeFailure resumeFailing(String sessionId, ResumeMode mode) throws TimeoutException {
    try {
      ResumeResult unexpected = resume(sessionId, mode);
      throw new AssertionError("the resume succeeded: " + unexpected);
    } catch (ResumeFailedException e) {
      return e.failure();
    }
  }

  public SessionState state(String sessionId) {
    return db.tx(h -> sessions.get(h, sessionId)).state();
  }

  public SessionIdentity identity(String sessionId) {
    return db.tx(h -> identities.read(h, sessionId));
  }

  /** The session's state transitions, oldest first, as "FROM>TO". */
  public List<String> transitions(String sessionId) {
    return fixtures.strings(
        "SELECT from_state || '>' || to_state FROM session_events WHERE session_id = ? ORDER BY id", sessionId);
  }

  public long liveLeases(String sessionId) {
    return fixtures.count("SELECT count(*) FROM credential_leases WHERE session_id = ? AND revoked_at IS NULL", sessionId);
  }

  public boolean lockHeld(String sessionId) {
    return db.tx(h -> locks.current(h, sessionId)).isPresent();
  }

  public String snapshotJson(String sessionId) {
    return fixtures.string("SELECT metadata::jsonb -> 'git_credential_snapshot' FROM task_sessions WHERE id = ?", sessionId);
  }

  /** Stops what {@link #beforeEach} started, also when it stopped half way. */
  private void shutdown() {
    try {
      if (worker != null) {
        worker.stop();
      }
      if (clientConnection != null) {
        clientConnection.close();
      }
      if (server != null) {
        server.close();
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not stop the Temporal server", e);
    } finally {
      if (gitHubApp != null) {
        gitHubApp.close();
      }
    }
  }
}
