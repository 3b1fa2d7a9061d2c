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
    return bus.isPresent() ? new OutboxKandevEvents(kandevSchema, Json.mapper(), Clock.systemUTC()) : KandevEventOutbox.NONE;
  }
}
