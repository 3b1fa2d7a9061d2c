package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.runtime.CommandRunner;
import dev.kandev.recovery.activities.runtime.RuntimeUpdateActivitiesImpl;
import dev.kandev.recovery.activities.runtime.StdioAcpProbe;
import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.RuntimeJobStore;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.TaskStore;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflow;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflowImpl;
import io.temporal.worker.Worker;

/** The real parts one worker process drives, built once from the settings. */
public final class Components implements AutoCloseable {
  private final Settings settings;
  private final Database database;
  final SessionStore sessions;
  final SessionIdentityStore identities;
  final ResumeLockStore locks;
  final TaskStore tasks;
  final RuntimeJobStore runtimeJobs;
  /** The agents whose runtime may be updated; production: Kandev's built-ins. */
  final BuiltInAgents agents;

  public Components(Settings settings, Database database) {
    this(settings, database, BuiltInAgents.KANDEV);
  }

  /** With another agent catalogue (tests add the packaged ACP test agent). */
  public Components(Settings settings, Database database, BuiltInAgents agents) {
    this.settings = settings;
    this.database = database;
    this.sessions = new SessionStore(database.dataSource(), Json.mapper());
    this.identities = new SessionIdentityStore(database.dataSource());
    this.locks = new ResumeLockStore(database.dataSource());
    this.tasks = new TaskStore(database.dataSource());
    this.runtimeJobs = new RuntimeJobStore(database.dataSource(), Json.mapper());
    this.agents = agents;
  }

  /** Registers the workflow implementations and activity implementations on {@code worker}. */
  public void register(Worker worker) {
    registerRuntimeUpdate(worker);
  }

  private void registerRuntimeUpdate(Worker worker) {
    worker.registerWorkflowImplementationFactory(
        RuntimeUpdateWorkflow.class, () -> new RuntimeUpdateWorkflowImpl(agents));
    worker.registerActivitiesImplementations(
        new RuntimeUpdateActivitiesImpl(
            agents, settings.npm(), new CommandRunner(), new StdioAcpProbe(Json.mapper()), runtimeJobs));
  }

  public Settings settings() {
    return settings;
  }

  public Database database() {
    return database;
  }

  @Override
  public void close() {
    database.close();
  }
}
