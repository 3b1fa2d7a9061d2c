package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.agent.AgentProfiles;
import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.worker.TemporalWorkers;
import dev.kandev.recovery.worker.WorkerRegistrations;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.observability.RecoveryMetrics;
import dev.kandev.recovery.worker.recovery.Periodic;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One worker process of {@link ResumeHarness}: its own real parts, its own Temporal connection and
 * its worker on the harness's queue. It can stop cleanly or die as {@code kill -9} would.
 */
public final class HarnessWorker {
  public final Components components;
  private final TemporalConnection connection;
  private final WorkerFactory factory;
  /** The worker process's reaper, as {@code WorkerProcess} runs it. */
  private final Periodic reaping;

  /** @param environment the worker's settings, without its instance name */
  HarnessWorker(String instance, Map<String, String> environment, Database database, AgentProfiles agents,
      String target, String queue, UnaryOperator<Object> decorate) {
    Map<String, String> own = new HashMap<>(environment);
    own.put("KANDEV_WORKER_INSTANCE", instance);
    Settings settings = Settings.fromEnvironment(own);
    this.components = new Components(settings, database, BuiltInAgents.KANDEV, agents, RecoveryMetrics.none());
    this.connection = TemporalConnection.open(target, "default", instance);
    this.factory = WorkerFactory.newInstance(connection.client, TemporalWorkers.factoryOptions());
    WorkerRegistrations registrations = components.registrations();
    TemporalWorkers.register(factory::newWorker, queue, new WorkerRegistrations(registrations.host(),
        registrations.workflows(), registrations.activities().stream().map(decorate).toList(), registrations.launchSlots(),
        registrations.pollsHostQueues()));
    factory.start();
    this.reaping = Periodic.every(settings.agentReapInterval(), "unowned-agent-reaper", components::reapUnownedAgents);
  }

  /** The client this worker's workers run on, as a worker process's own starts use it. */
  public WorkflowClient client() {
    return connection.client;
  }

  /**
   * Dies as {@code kill -9} would: it reports nothing more to Temporal, its activity threads stop
   * mid-step and its agents die with it.
   */
  public void kill() {
    connection.service.shutdownNow();
    factory.shutdownNow();
    reaping.close();
    components.close();
  }

  public void stop() {
    factory.shutdownNow();
    connection.close();
    reaping.close();
    components.close();
  }
}
