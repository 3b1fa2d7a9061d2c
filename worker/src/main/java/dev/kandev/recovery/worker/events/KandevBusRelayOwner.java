package dev.kandev.recovery.worker.events;

import java.util.Locale;
import java.util.Optional;

/**
 * Who publishes our outbox of Kandev's bus events ({@code KANDEV_BUS_RELAY}): the worker, on
 * Kandev's NATS bus ({@code KANDEV_NATS_URL}), or Kandev's own process, with the Go relay of
 * {@code starters/go/kandevbridge} on whatever bus Kandev runs (its in-process bus included). One
 * relay publishes: with {@link #KANDEV} the worker's NATS relay stays off.
 */
public enum KandevBusRelayOwner {
  /** The worker relays to {@code KANDEV_NATS_URL}, when it is set; without it nothing is stored. */
  WORKER,
  /** Kandev's process relays (kandevbridge); the worker stores the events and publishes none. */
  KANDEV;

  /** {@code worker} (the default) or {@code kandev}, as {@code KANDEV_BUS_RELAY} says it. */
  public static KandevBusRelayOwner parse(Optional<String> value) {
    return switch (value.map(v -> v.trim().toLowerCase(Locale.ROOT)).orElse("worker")) {
      case "worker" -> WORKER;
      case "kandev" -> KANDEV;
      default -> throw new IllegalArgumentException(
          "KANDEV_BUS_RELAY must be worker or kandev, got '" + value.orElse("") + "'");
    };
  }

  /** Whether the "kandev" layout's transitions store their events: someone will publish them. */
  public boolean storesEvents(Optional<KandevBusSettings> nats) {
    return this == KANDEV || nats.isPresent();
  }

  /** The NATS bus the worker's own relay publishes to; empty when Kandev relays or no NATS is set. */
  public Optional<KandevBusSettings> workerRelay(Optional<KandevBusSettings> nats) {
    return this == KANDEV ? Optional.empty() : nats;
  }
}
