package dev.kandev.recovery.activities.store;

import org.jdbi.v3.core.Handle;

/**
 * What the worker's store gauges read at each scrape (a few indexed rows), each on the caller's
 * transaction.
 */
public final class GaugeReadings {
  private static final String MISSING_BEATS = "SELECT count(*) FROM worker_presence"
      + " WHERE last_seen_at < now() - interval '" + WorkerPresenceStore.GONE_AFTER.toMillis() + " milliseconds'";

  private final String starting;
  private final String startingSince;

  /** Of the sessions of {@code layout}: our mirror's or Kandev's own. */
  public GaugeReadings(StoreLayout layout) {
    String sessions = layout.kandevTable("task_sessions");
    // Kandev's updated_at is the naive UTC wall clock.
    String updatedAt = layout.isKandev() ? "s.updated_at AT TIME ZONE 'UTC'" : "s.updated_at";
    starting = "SELECT count(*) FROM " + sessions + " WHERE state = 'STARTING'";
    startingSince = "SELECT coalesce(extract(epoch FROM now() - min(since)), 0) FROM ("
        + "SELECT coalesce((SELECT max(e.at) FROM session_events e WHERE e.session_id = s.id AND e.to_state = 'STARTING'),"
        + " " + updatedAt + ") AS since FROM " + sessions + " s WHERE s.state = 'STARTING') starting";
  }

  /** Sessions STARTING now. */
  public double sessionsStarting(Handle h) {
    return number(h, starting);
  }

  /** Seconds the session STARTING longest has been STARTING (since its latest move there); 0 when none is. */
  public double oldestStartingSeconds(Handle h) {
    return number(h, startingSince);
  }

  /** Worker instances whose last beat is older than {@link WorkerPresenceStore#GONE_AFTER}. */
  public double workersMissingBeats(Handle h) {
    return number(h, MISSING_BEATS);
  }

  private static double number(Handle h, String sql) {
    return h.createQuery(sql).mapTo(Double.class).one();
  }
}
