package dev.kandev.recovery.worker.cluster;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.MirrorSessionIdentityStore;
import dev.kandev.recovery.activities.store.MirrorExecutorsRunningStore;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TempFolders;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.TestAgentFiles;
import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.model.SessionState;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One test's kandev-recovery on the shared cluster: its own PostgreSQL schema (on the cluster's
 * PostgreSQL, beside Temporal's databases), task queue and
 * executor host (so the tests of a class share one cluster without seeing each other's runs),
 * {@code worker} processes and CLI commands of the packaged jar pointed at the balancer, and the
 * project's test agent with a mode file and a launch log.
 */
final class ClusterWorld implements BeforeEachCallback, AfterEachCallback {
  static final String WORKSPACE = "ws-1";
  private static final String AGENTS_FILE = "agents.json";
  private static final AtomicInteger WORLDS = new AtomicInteger();

  private final Supplier<LocalTemporalCluster> cluster;
  private final TestDatabase db;
  private final Map<String, JarProcess> workers = new LinkedHashMap<>();
  private final AtomicInteger commands = new AtomicInteger();
  private Path dir;
  private TestAgentFiles agent;
  private String queue;
  private String host;
  private WorkflowServiceStubs stubs;
  private WorkflowClient client;
  Fixtures fixtures;

  ClusterWorld(Supplier<LocalTemporalCluster> cluster) {
    this.cluster = cluster;
    this.db = new TestDatabase(() -> cluster.get().postgres().jdbcUrl());
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    db.beforeEach(context);
    fixtures = db.fixtures();
    dir = Files.createTempDirectory("kandev-cluster-world-");
    int n = WORLDS.incrementAndGet();
    queue = "kandev-it-" + ProcessHandle.current().pid() + "-" + n;
    host = "cluster-host-" + n;
    agent = new TestAgentFiles(dir);
    agent.mode("normal");
    agent.profile(AGENTS_FILE, host);
  }

  /** Starts a {@code worker} against the cluster's balancer; returns once it is ready. */
  JarProcess worker(String instance, Map<String, String> settings) {
    Map<String, String> env = environment();
    env.put("KANDEV_WORKER_INSTANCE", instance);
    env.putAll(settings);
    JarProcess worker = JarProcess.start(instance, env, logs(), "worker");
    workers.put(instance, worker);
    return worker.awaitOutput("Ready.", Duration.ofMinutes(3));
  }

  /** Runs a CLI command against the cluster's balancer to its end. */
  JarProcess.Result cli(Duration within, String... args) {
    return JarProcess.run("cli-" + commands.incrementAndGet() + "-" + args[0], environment(), logs(), within, args);
  }

  /** Starts a CLI command against the cluster's balancer without waiting for it. */
  JarProcess startCli(String... args) {
    return JarProcess.start("cli-" + commands.incrementAndGet() + "-" + args[0], environment(), logs(), args);
  }

  Map<String, String> environment() {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", cluster.get().address());
    env.put("KANDEV_TASK_QUEUE", queue);
    env.put("KANDEV_HOST", host);
    env.put("KANDEV_DB_URL", db.url());
    env.put("KANDEV_DB_USER", TestDatabase.USER);
    env.put("KANDEV_DB_SCHEMA", db.database().schema());
    env.put("KANDEV_STATE_DIR", dir.resolve("state").toString());
    env.put("KANDEV_AGENTS_FILE", dir.resolve(AGENTS_FILE).toString());
    env.put("KANDEV_AGENT_REAP_INTERVAL_SECONDS", "1");
    env.put("KANDEV_ACP_INITIALIZE_TIMEOUT_SECONDS", "120");
    env.put("KANDEV_LOG_LEVEL", "INFO");
    return env;
  }

  String queue() {
    return queue;
  }

  WorkflowClient client() {
    if (client == null) {
      stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(cluster.get().address()).build());
      client = WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder()
          .setNamespace("default").setIdentity("cluster-it").setDataConverter(RecoveryDataConverter.INSTANCE).build());
    }
    return client;
  }

  ResumeClient resumes() {
    return new ResumeClient(client(), queue);
  }

  /** The mode the next agent process starts in ({@code hold-initialize} holds it in ACP initialize). */
  void agentMode(String mode) {
    agent.mode(mode);
  }

  /** A task with one session of the test agent, in {@code state}, never launched. */
  void newSession(String sessionId, SessionState state) {
    fixtures.task("t-" + sessionId, WORKSPACE, "REVIEW").session(sessionId, "t-" + sessionId, TestAgent.AGENT_ID, state, "{}");
  }

  <T> T tx(Transactions.Work<T> work) {
    return db.tx(work);
  }

  SessionState state(String sessionId) {
    return db.tx(h -> new MirrorSessionStore(Json.mapper()).get(h, sessionId)).state();
  }

  SessionIdentity identity(String sessionId) {
    return db.tx(h -> new MirrorSessionIdentityStore().read(h, sessionId));
  }

  Optional<ExecutorRecord> executor(String sessionId) {
    return db.tx(h -> new MirrorExecutorsRunningStore().find(h, sessionId));
  }

  boolean agentLive(String sessionId) {
    return executor(sessionId).map(TestStores::claimsLiveProcess).orElse(false);
  }

  boolean lockHeld(String sessionId) {
    return fixtures.count("SELECT count(*) FROM resume_locks WHERE session_id = ?", sessionId) > 0;
  }

  /** Sessions of this world whose agent is in its ACP handshake. */
  long agentsStarting() {
    return fixtures.count("SELECT count(*) FROM executors_running WHERE status = 'starting' AND pid IS NOT NULL");
  }

  /** What the agents recorded, in the order they wrote it. */
  List<AgentEvent> agentEvents() {
    return agent.events(AgentEvent.class);
  }

  /** One line of the test agent's launch log: {@code start}, {@code session} (provider session {@code sessionId}), {@code stop}. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record AgentEvent(String event, String host, long pid, long at, String sessionId, Boolean loaded) {}

  Path logs() {
    return dir.resolve("logs");
  }

  /** The JDBC URL of the PostgreSQL this test's schema is on (the cluster's). */
  String databaseUrl() {
    return db.url();
  }

  /** This test's PostgreSQL schema, the one the processes use. */
  String schema() {
    return db.database().schema();
  }

  /** The file {@link #agentMode} writes. */
  Path modeFile() {
    return agent.modeFile();
  }

  /** Stops the workers as a service manager would (their agents stop with them), drops the schema and the folder. */
  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      if (stubs != null) {
        stubs.shutdownNow();
      }
      for (JarProcess worker : workers.values()) {
        if (worker.isAlive()) {
          worker.terminate(Duration.ofSeconds(60));
        }
      }
    } finally {
      TempFolders.killProcessesUsing(dir);
      db.afterEach(context);
      TempFolders.delete(dir);
    }
  }
}
