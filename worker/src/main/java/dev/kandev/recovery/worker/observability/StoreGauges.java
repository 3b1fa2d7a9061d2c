package dev.kandev.recovery.worker.observability;

import dev.kandev.recovery.activities.store.GaugeReadings;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.Transactions;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Gauges of the shared store, read at each scrape (a few indexed rows): every worker of a store
 * reports the same values, so alert on their {@code max}. A scrape while PostgreSQL is down shows
 * them as NaN (Micrometer's answer to a failing gauge) and {@code /readyz} names the database.
 */
public final class StoreGauges {
  private StoreGauges() {}

  /** The gauges of the store of {@code layout}: the sessions are our mirror's or Kandev's own. */
  public static void register(MeterRegistry registry, Transactions transactions, StoreLayout layout) {
    GaugeReadings readings = new GaugeReadings(layout);
    Gauge.builder("kandev_sessions_starting", () -> read(transactions, readings::sessionsStarting))
        .description("Sessions STARTING now (a resume holds them)").register(registry);
    Gauge.builder("kandev_sessions_starting_oldest_seconds", () -> read(transactions, readings::oldestStartingSeconds))
        .description("How long the session STARTING longest has been STARTING (0: none)").baseUnit("seconds")
        .register(registry);
    Gauge.builder("kandev_workers_missing_beats", () -> read(transactions, readings::workersMissingBeats))
        .description("Worker instances that stopped beating without leaving (gone: killed, hung or cut off)")
        .register(registry);
  }

  private static double read(Transactions transactions, Transactions.Work<Double> reading) {
    return transactions.inTransaction("read a store gauge", reading);
  }
}
