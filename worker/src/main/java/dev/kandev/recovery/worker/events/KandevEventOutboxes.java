package dev.kandev.recovery.worker.events;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.OutboxKandevEvents;
import java.time.Clock;
import java.util.Optional;

/** Which {@link KandevEventOutbox} the "kandev" layout's transitions get from the worker's settings. */
public final class KandevEventOutboxes {
  private KandevEventOutboxes() {}

  /**
   * Our outbox, reading Kandev's rows in {@code kandevSchema}, when Kandev's bus is on NATS (the
   * relay publishes it); otherwise none: with Kandev's in-process bus nobody would publish them.
   */
  public static KandevEventOutbox of(Optional<KandevBusSettings> bus, String kandevSchema) {
    return of(KandevBusRelayOwner.WORKER, bus, kandevSchema);
  }

  /**
   * Our outbox when someone publishes it: the worker's NATS relay, or Kandev's own process
   * ({@code KANDEV_BUS_RELAY=kandev}, on any bus of Kandev's); otherwise none.
   */
  public static KandevEventOutbox of(KandevBusRelayOwner owner, Optional<KandevBusSettings> bus, String kandevSchema) {
    return owner.storesEvents(bus) ? new OutboxKandevEvents(kandevSchema, Json.mapper(), Clock.systemUTC()) : KandevEventOutbox.NONE;
  }
}
