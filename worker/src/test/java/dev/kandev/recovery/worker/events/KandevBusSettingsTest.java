package dev.kandev.recovery.worker.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.OutboxKandevEvents;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KandevBusSettingsTest {
  @Test
  void unsetMeansNoBus() {
    assertThat(KandevBusSettings.of(Optional.empty(), Optional.of("x"))).isEmpty();
  }

  @Test
  void theClientIdDefaultsToOurName() {
    assertThat(KandevBusSettings.of(Optional.of("nats://h:4222"), Optional.empty()).orElseThrow().clientId())
        .isEqualTo("kandev-recovery");
  }

  @Test
  void credentialsOfTheUrlAreNeverShown() {
    KandevBusSettings bus = new KandevBusSettings("nats://alice:pa55word@h1:4222, tls://t0ken@h2:4443", "c");
    assertThat(bus.serverUrls()).containsExactly("nats://alice:pa55word@h1:4222", "tls://t0ken@h2:4443");
    assertThat(bus.display()).isEqualTo("nats://h1:4222,tls://h2:4443");
    assertThat(bus.toString()).doesNotContain("pa55word").doesNotContain("t0ken").doesNotContain("alice");
    assertThat(bus.scrub("Unable to connect to NATS servers: [nats://alice:pa55word@h1:4222] alice:pa55word"))
        .doesNotContain("pa55word").contains("nats://h1:4222");
  }

  @Test
  void aBadUrlIsRefusedWithoutItsCredentials() {
    assertThatThrownBy(() -> new KandevBusSettings("http://alice:pa55word@h1:4222", "c"))
        .hasMessageContaining("KANDEV_NATS_URL").hasMessageContaining("http://h1:4222").hasMessageNotContaining("pa55word");
    assertThatThrownBy(() -> new KandevBusSettings(" , ", "c")).hasMessageContaining("KANDEV_NATS_URL");
    assertThatThrownBy(() -> new KandevBusSettings("nats://h:1", " ")).hasMessageContaining("KANDEV_NATS_CLIENTID");
  }

  @Test
  void theLayoutStoresEventsOnlyWhenSomeonePublishesThem() {
    assertThat(KandevEventOutboxes.of(Optional.empty(), "public")).isSameAs(KandevEventOutbox.NONE);
    assertThat(KandevEventOutboxes.of(Optional.of(new KandevBusSettings("nats://h:4222", "c")), "public"))
        .isInstanceOf(OutboxKandevEvents.class);
  }

  @Test
  void kandevsOwnRelayGetsTheOutboxOnAnyBusAndTheWorkerPublishesNone() {
    Optional<KandevBusSettings> nats = Optional.of(new KandevBusSettings("nats://h:4222", "c"));
    KandevBusRelayOwner kandev = KandevBusRelayOwner.parse(Optional.of(" Kandev "));
    assertThat(kandev).isEqualTo(KandevBusRelayOwner.KANDEV);
    // Kandev's in-process bus: the events are stored for its relay.
    assertThat(KandevEventOutboxes.of(kandev, Optional.empty(), "public")).isInstanceOf(OutboxKandevEvents.class);
    assertThat(KandevEventOutboxes.of(kandev, nats, "public")).isInstanceOf(OutboxKandevEvents.class);
    // One relay publishes: the worker's stays off even with KANDEV_NATS_URL set.
    assertThat(kandev.workerRelay(nats)).isEmpty();
  }

  @Test
  void theWorkerRelaysByDefaultAsBefore() {
    Optional<KandevBusSettings> nats = Optional.of(new KandevBusSettings("nats://h:4222", "c"));
    KandevBusRelayOwner worker = KandevBusRelayOwner.parse(Optional.empty());
    assertThat(worker).isEqualTo(KandevBusRelayOwner.WORKER);
    assertThat(KandevBusRelayOwner.parse(Optional.of("worker"))).isEqualTo(KandevBusRelayOwner.WORKER);
    assertThat(KandevEventOutboxes.of(worker, Optional.empty(), "public")).isSameAs(KandevEventOutbox.NONE);
    assertThat(worker.workerRelay(nats)).isEqualTo(nats);
  }

  @Test
  void anUnknownRelayOwnerIsRefused() {
    assertThatThrownBy(() -> KandevBusRelayOwner.parse(Optional.of("nats")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_BUS_RELAY must be worker or kandev, got 'nats'");
  }
}
