package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.acp.AgentProfiles;
import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import io.temporal.worker.WorkerFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One worker process of {@link ResumeHarness}: its own real parts, its own Temporal connection and
 * its worker on the harness's queue. It can stop cleanly or die as {@code kill -9} would.
 */
final class HarnessWorker {
  final Components components;
  private final TemporalConnection connection;
  private final WorkerFactory factory;

  /** @param environment the worker's settings, without its instance name */
  HarnessWorker(String instance, Map<String, String> environment, Database database, AgentProfiles agents,
      String target, String queue, UnaryOperator<Object> decorate) {
    Map<String, String> own = new HashMap<>(environment);
    own.put("KANDEV_WORKER_INSTANCE", instance);
    this.components = new Components(Settings.fromEnvironment(own), database, BuiltInAgents.KANDEV, agents);
    this.connection = TemporalConnection.open(target, "default", instance);
    this.factory = WorkerFactory.newInstance(connection.client, RecoveryWorker.factoryOptions());
    components.register(factory::newWorker, queue, decorate);
    factory.start();
  }

  /**
   * Dies as {@code kill -9} would: it reports nothing more to Temporal, its activity threads stop
   * mid-step and its agents die with it.
   */
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
