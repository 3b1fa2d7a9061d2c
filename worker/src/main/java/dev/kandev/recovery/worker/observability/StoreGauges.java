package dev.kandev.recovery.worker.observability;

import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.store.WorkerPresenceStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Gauges of the shared store, read at each scrape (a few indexed rows): every worker of a store
 * reports the same values, so alert on their {@code max}. A scrape while PostgreSQL is down shows
 * them as NaN (Micrometer's answer to a failing gauge) and {@code /readyz} names the database.
 */
public final class StoreGauges {
  /** Sessions STARTING, and since when, in {@code sessions} (with its {@code updated_at} as {@code timestamptz}). */
  private static String startingSince(String sessions, String updatedAt) {
    return "SELECT coalesce(extract(epoch FROM now() - min(since)), 0) FROM ("
        + "SELECT coalesce((SELECT max(e.at) FROM session_events e WHERE e.session_id = s.id AND e.to_state = 'STARTING'),"
        + " " + updatedAt + ") AS since FROM " + sessions + " s WHERE s.state = 'STARTING') starting";
  }

  private static final String MISSING_BEATS = "SELECT count(*) FROM worker_presence"
      + " WHERE last_seen_at < now() - interval '" + WorkerPresenceStore.GONE_AFTER.toMillis() + " milliseconds'";

  private StoreGauges() {}

  /** The gauges of the store of {@code layout}: the sessions are our mirror's or Kandev's own. */
  public static void register(MeterRegistry registry, Transactions transactions, StoreLayout layout) {
    // Kandev's updated_at is the naive UTC wall clock.
    String sessions = layout.isKandev() ? layout.kandevSchema() + ".task_sessions" : "task_sessions";
    String startingSince = layout.isKandev() ? startingSince(sessions, "s.updated_at AT TIME ZONE 'UTC'")
        : startingSince(sessions, "s.updated_at");
    String starting = "SELECT count(*) FROM " + sessions + " WHERE state = 'STARTING'";
    Gauge.builder("kandev_sessions_starting", () -> number(transactions, starting))
        .description("Sessions STARTING now (a resume holds them)").register(registry);
    Gauge.builder("kandev_sessions_starting_oldest_seconds", () -> number(transactions, startingSince))
        .description("How long the session STARTING longest has been STARTING (0: none)").baseUnit("seconds")
        .register(registry);
    Gauge.builder("kandev_workers_missing_beats", () -> number(transactions, MISSING_BEATS))
        .description("Worker instances that stopped beating without leaving (gone: killed, hung or cut off)")
        .register(registry);
  }

  private static double number(Transactions transactions, String sql) {
    return transactions.inTransaction("read a store gauge", h -> h.createQuery(sql).mapTo(Double.class).one());
  }
}
