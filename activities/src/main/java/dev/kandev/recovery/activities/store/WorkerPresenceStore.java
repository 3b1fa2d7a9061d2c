package dev.kandev.recovery.activities.store;

import java.sql.PreparedStatement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The worker instances that are alive, in {@code worker_presence}: a worker beats its row while it
 * runs and removes it when it stops cleanly. An instance whose row went stale (or never existed) is
 * gone, and so are the agents it ran.
 */
public final class WorkerPresenceStore {
  /** How often a running worker beats. */
  public static final Duration BEAT_EVERY = Duration.ofSeconds(15);
  /** An instance that has not beaten for this long (four beats missed) is gone. */
  public static final Duration GONE_AFTER = Duration.ofSeconds(60);
  /** SQL: the worker instance of the row aliased {@code e} beat within {@link #GONE_AFTER}. */
  static final String INSTANCE_ALIVE = "EXISTS (SELECT 1 FROM worker_presence p"
      + " WHERE p.worker_instance = e.worker_instance"
      + " AND p.last_seen_at > now() - interval '" + GONE_AFTER.toMillis() + " milliseconds')";
  /** Rows this old belong to instances long gone; a beat removes them. */
  private static final String FORGET_AFTER = "1 day";

  private final DataSource dataSource;

  public WorkerPresenceStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** This instance is alive now. */
  public void beat(String workerInstance, String host) {
    Sql.inTransaction(dataSource, "record worker " + workerInstance + " alive", c -> {
      try (PreparedStatement upsert = c.prepareStatement(
          "INSERT INTO worker_presence (worker_instance, host) VALUES (?, ?)"
              + " ON CONFLICT (worker_instance) DO UPDATE SET last_seen_at = now()");
          PreparedStatement forget = c.prepareStatement(
              "DELETE FROM worker_presence WHERE last_seen_at < now() - interval '" + FORGET_AFTER + "'")) {
        upsert.setString(1, workerInstance);
        upsert.setString(2, host);
        upsert.executeUpdate();
        forget.executeUpdate();
        return null;
      }
    });
  }

  /** This instance stopped cleanly. */
  public void leave(String workerInstance) {
    Sql.inTransaction(dataSource, "record worker " + workerInstance + " stopped", c -> {
      try (PreparedStatement delete = c.prepareStatement("DELETE FROM worker_presence WHERE worker_instance = ?")) {
        delete.setString(1, workerInstance);
        delete.executeUpdate();
        return null;
      }
    });
  }
}
