package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.agent.AgentHostSettings;
import dev.kandev.recovery.activities.runtime.CommandResult;
import dev.kandev.recovery.activities.runtime.CommandRunner;
import dev.kandev.recovery.activities.runtime.NpmSettings;
import dev.kandev.recovery.activities.testing.FileTreeSnapshot;
import dev.kandev.recovery.activities.testing.LocalNpmRegistry;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import dev.kandev.recovery.activities.testing.TestAgentNpmWorld;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.worker.TemporalWorkers;
import dev.kandev.recovery.worker.config.AgentCatalog;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.observability.RecoveryMetrics;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import dev.kandev.recovery.workflows.client.RuntimeUpdateClient;
import dev.kandev.recovery.workflows.runtime.TestAgents;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real worker components against a private npm world (a {@link TestAgentNpmWorld}: its own
 * cache, the test agent's package on a local registry), on the SDK's test environment, on a real
 * Temporal server (the CLI's dev server, with its Web UI) or on one that runs already. A JUnit extension, started before each
 * test and stopped after it; register it after the {@link TestDatabase} and the world it uses:
 * {@code @RegisterExtension @Order(2) final RuntimeUpdateHarness harness = RuntimeUpdateHarness.onTestServer(db, world);}.
 */
public final class RuntimeUpdateHarness implements BeforeEachCallback, AfterEachCallback {
  private final TestDatabase db;
  private final TestAgentNpmWorld world;
  private final boolean realServer;
  private final Supplier<String> serverAddress;
  private final String queue;

  // What beforeEach starts.
  private Path dir;
  private LocalNpmRegistry registry;
  private NpmSandbox npm;
  private WorkflowClient client;
  private RuntimeUpdateClient updates;
  private Components components;
  private AutoCloseable temporal;
  private String webUi;

  private RuntimeUpdateHarness(TestDatabase db, TestAgentNpmWorld world, boolean realServer, Supplier<String> serverAddress,
      String queue) {
    this.db = db;
    this.world = world;
    this.realServer = realServer;
    this.serverAddress = serverAddress;
    this.queue = queue;
  }

  /** On the SDK's test environment, against {@code world}'s npm (a static extension of the test class). */
  public static RuntimeUpdateHarness onTestServer(TestDatabase db, TestAgentNpmWorld world) {
    return new RuntimeUpdateHarness(db, world, false, null, RecoveryTaskQueue.DEFAULT);
  }

  /** On a real Temporal server (the CLI's dev server) with its Web UI. */
  public static RuntimeUpdateHarness onRealServer(TestDatabase db, TestAgentNpmWorld world) {
    return new RuntimeUpdateHarness(db, world, true, null, RecoveryTaskQueue.DEFAULT);
  }

  /** On a Temporal server that runs already (at the address {@code serverAddress} gives), on {@code queue}. */
  public static RuntimeUpdateHarness onServer(TestDatabase db, TestAgentNpmWorld world, Supplier<String> serverAddress,
      String queue) {
    return new RuntimeUpdateHarness(db, world, true, serverAddress, queue);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    dir = world.dir();
    registry = world.registry();
    npm = world.sandbox();
    components = components(db, npm);
    if (serverAddress != null) {
      startOnRealServer(serverAddress.get(), () -> {});
    } else if (realServer) {
      DevTemporalServer server = RealTemporalServer.start(dir.resolve("temporal"));
      webUi = server.webUi();
      startOnRealServer(server.address(), server);
    } else {
      startOnTestServer();
    }
    updates = new RuntimeUpdateClient(client, queue);
  }

  /** The folder the npm world (and a real server's state) lives in. */
  public Path dir() {
    return dir;
  }

  /** The local registry that serves the test agent's package. */
  public LocalNpmRegistry registry() {
    return registry;
  }

  public NpmSandbox npm() {
    return npm;
  }

  public WorkflowClient client() {
    return client;
  }

  public RuntimeUpdateClient updates() {
    return updates;
  }

  private void startOnTestServer() {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setUseTimeskipping(false)
        .setWorkerFactoryOptions(TemporalWorkers.factoryOptions())
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(RecoveryDataConverter.INSTANCE).build())
        .build());
    temporal = env::close;
    RecoverySearchAttributes.ALL.forEach(
        key -> env.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
    TemporalWorkers.register(env::newWorker, queue, components.registrations());
    env.start();
    client = env.getWorkflowClient();
  }

  private void startOnRealServer(String address, AutoCloseable server) {
    temporal = server;
    TemporalConnection connection = TemporalConnection.open(address, "default", "test-worker");
    WorkerFactory factory = WorkerFactory.newInstance(connection.client, TemporalWorkers.factoryOptions());
    temporal = () -> {
      factory.shutdownNow();
      connection.close();
      server.close();
    };
    TemporalWorkers.register(factory::newWorker, queue, components.registrations());
    factory.start();
    client = connection.client;
  }

  /** Stops what {@link #beforeEach} started, also when it stopped half way. */
  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      if (temporal != null) {
        temporal.close();
      }
    } finally {
      if (components != null) {
        components.close();
      }
    }
  }

  /** The Web UI of the real server. */
  public String webUi() {
    if (webUi == null) {
      throw new IllegalStateException("the SDK's test environment has no Web UI: use onRealServer");
    }
    return webUi;
  }

  private static Components components(TestDatabase db, NpmSandbox npm) {
    Map<String, String> env = new HashMap<>(AgentHostSettings.inheritedFrom(System.getenv()));
    env.putAll(Map.of("KANDEV_DB_SCHEMA", db.database().schema(), "KANDEV_WORKER_INSTANCE", "test-worker"));
    Settings settings = withNpm(Settings.fromEnvironment(env), npm.settings());
    return new Components(settings, db.database(), TestAgents.CATALOGUE,
        AgentCatalog.load(TestAgents.CATALOGUE, settings.npm(), settings.agentsFile()), RecoveryMetrics.none());
  }

  /** The same settings with another npm: the sandbox's private cache and registry. */
  private static Settings withNpm(Settings s, NpmSettings npm) {
    return new Settings(s.database(), s.temporalAddress(), s.temporalNamespace(), s.taskQueue(), s.host(),
        s.workerInstance(), s.registerSearchAttributes(), npm, s.agentsFile(), s.acpTimeouts(), s.permissionPolicy(),
        s.gitHubApp(), s.credentialBrokerPort(), s.resumeLockTtl(), s.agentReapInterval(), s.stateDir(),
        s.launchHeartbeatTimeout(), s.httpPort(), s.httpAddress(), s.temporalClient(), s.launchLimits(), s.hostWait(),
        s.agentEnvironment(), s.dev(), s.versioning(), s.retention(), s.kandevBus(), s.launchAdapter(), s.kandevBusRelay());
  }

  /** Another package's real execution tree, which the repair must leave alone. */
  public void extractSibling(String spec) {
    CommandResult result = new CommandRunner().run(
        npm.settings().updateCommand(spec), npm.environment(), Duration.ofSeconds(60), true);
    if (!result.succeeded()) {
      throw new IllegalStateException("could not extract sibling " + spec + ": " + result.describe());
    }
  }

  /**
   * Truncates the extracted tree. Found empirically with npm 11.19: a truncated entry file
   * (bin/kandev-test-agent.js) alone does not make the update fail, because {@code npm exec ...
   * node -e ""} never runs it, and a truncated package.json of the package itself is not read
   * either; npm's arborist does read the tree's own {@code _npx/<key>/package.json}, and an empty
   * one fails the update with EJSONPARSE. Both are truncated, so a passing probe afterwards also
   * proves the entry file was re-extracted.
   */
  public void corrupt(String spec) throws IOException {
    Path tree = npm.npxTree(spec);
    Files.write(tree.resolve("node_modules/kandev-test-agent/bin/kandev-test-agent.js"), new byte[0]);
    Files.write(tree.resolve("package.json"), new byte[0]);
  }

  /** Every path under {@code top} with a digest of its content (or its link target). */
  public static Map<String, String> snapshot(Path top) {
    return FileTreeSnapshot.of(top);
  }

  public WorkflowExecutionHistory history(String workflowId, String runId) {
    return client.fetchHistory(workflowId, runId);
  }

  public static void recordIfAsked(WorkflowExecutionHistory history, String name) {
    RecordedHistories.recordIfAsked(history, "runtime-update-" + name);
  }

}
