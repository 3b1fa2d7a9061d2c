package dev.kandev.recovery.activities.store;

import java.time.Duration;
import org.jdbi.v3.core.Handle;

/**
 * The worker instances that are alive, in {@code worker_presence}: a worker beats its row while it
 * runs and removes it when it stops cleanly. An instance whose row went stale (or never existed) is
 * gone, and so are the agents it ran. Every method runs on the caller's transaction {@link Handle}.
 */
public final class WorkerPresenceStore {
  /** How often a running worker beats. */
  public static final Duration BEAT_EVERY = Duration.ofSeconds(15);
  /** An instance that has not beaten for this long (four beats missed) is gone. */
  public static final Duration GONE_AFTER = Duration.ofSeconds(60);
  /** SQL: the worker instance of the row aliased {@code e} beat within {@link #GONE_AFTER}. */
  public static final String INSTANCE_ALIVE = "EXISTS (SELECT 1 FROM worker_presence p"
      + " WHERE p.worker_instance = e.worker_instance"
      + " AND p.last_seen_at > now() - interval '" + GONE_AFTER.toMillis() + " milliseconds')";
  /** Rows this old belong to instances long gone; a beat removes them. */
  private static final String FORGET_AFTER = "1 day";

  /** This instance is alive now. */
  public void beat(Handle h, String workerInstance, String host) {
    h.createUpdate("INSERT INTO worker_presence (worker_instance, host) VALUES (:instance, :host)"
            + " ON CONFLICT (worker_instance) DO UPDATE SET last_seen_at = now()")
        .bind("instance", workerInstance)
        .bind("host", host)
        .execute();
    h.execute("DELETE FROM worker_presence WHERE last_seen_at < now() - interval '" + FORGET_AFTER + "'");
  }

  /** This instance stopped cleanly. */
  public void leave(Handle h, String workerInstance) {
    h.createUpdate("DELETE FROM worker_presence WHERE worker_instance = :instance")
        .bind("instance", workerInstance)
        .execute();
  }
}
