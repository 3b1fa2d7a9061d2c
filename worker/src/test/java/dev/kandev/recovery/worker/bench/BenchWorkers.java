package dev.kandev.recovery.worker.bench;

import dev.kandev.recovery.activities.agent.AgentHostSettings;
import dev.kandev.recovery.activities.agent.AgentProfiles;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.observability.RecoveryMetrics;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The real parts of the resume benchmarks' workers, as production builds them. Each way has its own
 * (its own agent host and launch slots: two workers' launch pollers would hold each other's slots),
 * all on the same database schema, sessions and agent (program, profile, state directory and mode).
 */
final class BenchWorkers implements AutoCloseable {
  private final TestDatabase db;
  private final Path dir;
  private final Path modeFile;
  private final List<Components> all = new CopyOnWriteArrayList<>();

  BenchWorkers(TestDatabase db, Path dir) {
    this.db = db;
    this.dir = dir;
    this.modeFile = dir.resolve("agent-mode");
    try {
      Files.writeString(modeFile, "normal");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Components create(String instance) {
    // The agent inherits PATH (and HOME, LANG…) from the worker's environment, as in production.
    Map<String, String> env = new HashMap<>(AgentHostSettings.inheritedFrom(System.getenv()));
    env.putAll(Map.of("KANDEV_DB_SCHEMA", db.database().schema(), "KANDEV_HOST", "bench-host",
        "KANDEV_WORKER_INSTANCE", instance));
    Components components = new Components(Settings.fromEnvironment(env), db.database(), BuiltInAgents.KANDEV,
        AgentProfiles.of(TestAgent.switchable(modeFile, dir.resolve("agent-state"))), RecoveryMetrics.none());
    all.add(components);
    return components;
  }

  /** Every worker created and not yet closed: each resets the sessions' agents on it. */
  List<Components> all() {
    return all;
  }

  void close(Components worker) {
    all.remove(worker);
    worker.close();
  }

  @Override
  public void close() {
    all.forEach(Components::close);
    all.clear();
  }
}
