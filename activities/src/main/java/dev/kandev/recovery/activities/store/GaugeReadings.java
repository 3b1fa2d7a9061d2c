package dev.kandev.recovery.activities.store;

import org.jdbi.v3.core.Handle;

/**
 * What the worker's store gauges read at each scrape (a few indexed rows), each on the caller's
 * transaction.
 */
public final class GaugeReadings {
  private static final String STARTING_SINCE = "SELECT coalesce(extract(epoch FROM now() - min(since)), 0) FROM ("
      + "SELECT coalesce((SELECT max(e.at) FROM session_events e WHERE e.session_id = s.id AND e.to_state = 'STARTING'),"
      + " s.updated_at) AS since FROM task_sessions s WHERE s.state = 'STARTING') starting";
  private static final String STARTING = "SELECT count(*) FROM task_sessions WHERE state = 'STARTING'";
  private static final String MISSING_BEATS = "SELECT count(*) FROM worker_presence"
      + " WHERE last_seen_at < now() - interval '" + WorkerPresenceStore.GONE_AFTER.toMillis() + " milliseconds'";

  /** Sessions STARTING now. */
  public double sessionsStarting(Handle h) {
    return number(h, STARTING);
  }

  /** Seconds the session STARTING longest has been STARTING (since its latest move there); 0 when none is. */
  public double oldestStartingSeconds(Handle h) {
    return number(h, STARTING_SINCE);
  }

  /** Worker instances whose last beat is older than {@link WorkerPresenceStore#GONE_AFTER}. */
  public double workersMissingBeats(Handle h) {
    return number(h, MISSING_BEATS);
  }

  private static double number(Handle h, String sql) {
    return h.createQuery(sql).mapTo(Double.class).one();
  }
}
