package dev.kandev.recovery.worker.observability;

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
  private static final String STARTING_SINCE = "SELECT coalesce(extract(epoch FROM now() - min(since)), 0) FROM ("
      + "SELECT coalesce((SELECT max(e.at) FROM session_events e WHERE e.session_id = s.id AND e.to_state = 'STARTING'),"
      + " s.updated_at) AS since FROM task_sessions s WHERE s.state = 'STARTING') starting";
  private static final String STARTING = "SELECT count(*) FROM task_sessions WHERE state = 'STARTING'";
  private static final String MISSING_BEATS = "SELECT count(*) FROM worker_presence"
      + " WHERE last_seen_at < now() - interval '" + WorkerPresenceStore.GONE_AFTER.toMillis() + " milliseconds'";

  private StoreGauges() {}

  public static void register(MeterRegistry registry, Transactions transactions) {
    Gauge.builder("kandev_sessions_starting", () -> number(transactions, STARTING))
        .description("Sessions STARTING now (a resume holds them)").register(registry);
    Gauge.builder("kandev_sessions_starting_oldest_seconds", () -> number(transactions, STARTING_SINCE))
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
