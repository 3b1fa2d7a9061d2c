package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.acp.AgentHostSettings;
import dev.kandev.recovery.activities.runtime.CommandResult;
import dev.kandev.recovery.activities.runtime.CommandRunner;
import dev.kandev.recovery.activities.testing.FileTreeSnapshot;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import dev.kandev.recovery.activities.testing.TestAgentPackage;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import dev.kandev.recovery.workflows.runtime.TestAgents;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
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
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The real worker components against a private npm world, on the SDK's test environment or on a
 * real Temporal server (the CLI's dev server, with its Web UI).
 */
final class RuntimeUpdateHarness implements AutoCloseable {
  final WorkflowClient client;
  final NpmSandbox npm;
  private final Components components;
  private final AutoCloseable temporal;
  private final String webUi;

  RuntimeUpdateHarness(TestDatabase db, NpmSandbox npm) {
    this.npm = npm;
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setUseTimeskipping(false)
        .setWorkerFactoryOptions(RecoveryWorker.factoryOptions())
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(RecoveryDataConverter.INSTANCE).build())
        .build());
    RecoverySearchAttributes.ALL.forEach(
        key -> env.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
    this.components = components(db, npm);
    components.register(env::newWorker, RecoveryTaskQueue.DEFAULT);
    env.start();
    this.client = env.getWorkflowClient();
    this.temporal = env::close;
    this.webUi = null;
  }

  private RuntimeUpdateHarness(TestDatabase db, NpmSandbox npm, DevTemporalServer server) {
    this.npm = npm;
    TemporalConnection connection = TemporalConnection.open(server.address(), "default", "test-worker");
    this.components = components(db, npm);
    WorkerFactory factory = WorkerFactory.newInstance(connection.client, RecoveryWorker.factoryOptions());
    components.register(factory::newWorker, RecoveryTaskQueue.DEFAULT);
    factory.start();
    this.client = connection.client;
    this.temporal = () -> {
      factory.shutdownNow();
      connection.close();
      server.close();
    };
    this.webUi = server.webUi();
  }

  /** The same on a real Temporal server whose state lives in {@code stateDir}. */
  static RuntimeUpdateHarness onRealServer(TestDatabase db, NpmSandbox npm, Path stateDir) {
    return new RuntimeUpdateHarness(db, npm, RealTemporalServer.start(stateDir));
  }

  /** The Web UI of the real server. */
  String webUi() {
    if (webUi == null) {
      throw new IllegalStateException("the SDK's test environment has no Web UI: use onRealServer");
    }
    return webUi;
  }

  private static Components components(TestDatabase db, NpmSandbox npm) {
    Map<String, String> env = new HashMap<>(AgentHostSettings.inheritedFrom(System.getenv()));
    env.putAll(Map.of("KANDEV_DB_SCHEMA", db.database().schema(), "KANDEV_WORKER_INSTANCE", "test-worker"));
    Settings settings = Settings.fromEnvironment(env).withNpm(npm.settings());
    return new Components(settings, db.database(), TestAgents.CATALOGUE, null);
  }

  /** What a first normal launch does: {@code npx --yes --prefer-offline kandev-test-agent}, stdin closed. */
  void extractThroughNpx(String spec) {
    CommandResult result = new CommandRunner().run(
        npm.settings().launchCommand(spec, List.of()), npm.environment(), Duration.ofSeconds(60), true);
    if (!result.succeeded() || !Files.isDirectory(npm.npxTree(spec))) {
      throw new IllegalStateException("npx did not extract " + spec + ": " + result.describe());
    }
  }

  /** Another package's real execution tree, which the repair must leave alone. */
  void extractSibling(String spec) {
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
  void corrupt(String spec) throws IOException {
    Path tree = npm.npxTree(spec);
    Files.write(tree.resolve("node_modules/kandev-test-agent/bin/kandev-test-agent.js"), new byte[0]);
    Files.write(tree.resolve("package.json"), new byte[0]);
  }

  /** Every path under {@code top} with a digest of its content (or its link target). */
  static Map<String, String> snapshot(Path top) {
    return FileTreeSnapshot.of(top);
  }

  WorkflowExecutionHistory history(String workflowId, String runId) {
    return client.fetchHistory(workflowId, runId);
  }

  /** Activity types in the order they were scheduled. */
  static List<String> activities(WorkflowExecutionHistory history) {
    return scheduled(history).map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName()).toList();
  }

  static Stream<HistoryEvent> scheduled(WorkflowExecutionHistory history) {
    return history.getEvents().stream().filter(HistoryEvent::hasActivityTaskScheduledEventAttributes);
  }

  static void recordIfAsked(WorkflowExecutionHistory history, String name) {
    RecordedHistories.recordIfAsked(history, "runtime-update-" + name);
  }

  @Override
  public void close() throws Exception {
    try {
      temporal.close();
    } finally {
      components.close();
    }
  }
}
