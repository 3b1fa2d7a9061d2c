package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.TaskStore;
import io.temporal.worker.Worker;

/** The real parts one worker process drives, built once from the settings. */
public final class Components implements AutoCloseable {
  private final Settings settings;
  private final Database database;
  final SessionStore sessions;
  final SessionIdentityStore identities;
  final ResumeLockStore locks;
  final TaskStore tasks;

  public Components(Settings settings, Database database) {
    this.settings = settings;
    this.database = database;
    this.sessions = new SessionStore(database.dataSource(), Json.mapper());
    this.identities = new SessionIdentityStore(database.dataSource());
    this.locks = new ResumeLockStore(database.dataSource());
    this.tasks = new TaskStore(database.dataSource());
  }

  /** Registers the workflow implementations and activity implementations on {@code worker}. */
  void register(Worker worker) {}

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
