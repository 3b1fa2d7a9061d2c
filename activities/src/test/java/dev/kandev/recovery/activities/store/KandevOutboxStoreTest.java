package dev.kandev.recovery.activities.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.events.KandevEvent;
import dev.kandev.recovery.activities.store.KandevOutboxStore.PendingEvent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class KandevOutboxStoreTest {
  @RegisterExtension final TestDatabase db = new TestDatabase();
  private final KandevOutboxStore outbox = new KandevOutboxStore();

  private KandevEvent event(String subject) {
    UUID id = UUID.randomUUID();
    return new KandevEvent(id, subject, "{\"id\":\"" + id + "\",\"type\":\"" + subject + "\"}");
  }

  @Test
  void unpublishedEventsComeInOrderUntilMarkedPublished() {
    List<KandevEvent> appended = List.of(event("a"), event("b"), event("c"));
    appended.forEach(e -> db.run((Handle h) -> outbox.append(h, e)));

    List<PendingEvent> first = db.tx((Handle h) -> outbox.nextUnpublished(h, 2));
    assertThat(first).extracting(PendingEvent::eventId).containsExactly(appended.get(0).id(), appended.get(1).id());
    assertThat(first.get(0).envelope()).isEqualTo(appended.get(0).envelope());
    db.run((Handle h) -> outbox.markPublished(h, first));

    assertThat(db.tx((Handle h) -> outbox.nextUnpublished(h, 10))).extracting(PendingEvent::subject).containsExactly("c");
    assertThat(db.tx((Handle h) -> outbox.unpublished(h))).isEqualTo(1);
  }

  @Test
  void anEventCommittedLateUnderALowerNumberIsStillPublishedLater() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    CountDownLatch appended = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    try {
      Future<?> slow = other.submit(() -> db.run((Handle h) -> {
        outbox.append(h, event("slow"));
        appended.countDown();
        await(commit);
      }));
      assertThat(appended.await(10, TimeUnit.SECONDS)).isTrue();
      db.run((Handle h) -> outbox.append(h, event("fast")));
      List<PendingEvent> seen = db.tx((Handle h) -> outbox.nextUnpublished(h, 10));
      assertThat(seen).extracting(PendingEvent::subject).containsExactly("fast");
      db.run((Handle h) -> outbox.markPublished(h, seen));
      commit.countDown();
      slow.get(10, TimeUnit.SECONDS);

      assertThat(db.tx((Handle h) -> outbox.nextUnpublished(h, 10))).extracting(PendingEvent::subject).containsExactly("slow");
    } finally {
      commit.countDown();
      other.shutdownNow();
    }
  }

  @Test
  void onlyOneTransactionIsTheRelayAtATime() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try {
      Future<Boolean> first = other.submit(() -> db.tx((Handle h) -> {
        boolean relay = outbox.becomeTheRelay(h);
        held.countDown();
        await(release);
        return relay;
      }));
      assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(db.tx((Handle h) -> outbox.becomeTheRelay(h))).as("a second relay while the first runs").isFalse();
      release.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(db.tx((Handle h) -> outbox.becomeTheRelay(h))).as("after the first one's transaction ended").isTrue();
    } finally {
      release.countDown();
      other.shutdownNow();
    }
  }

  @Test
  void pruningDeletesOnlyEventsPublishedLongEnoughAgo() {
    List.of(event("old"), event("recent"), event("unpublished")).forEach(e -> db.run((Handle h) -> outbox.append(h, e)));
    db.fixtures().exec("UPDATE kandev_event_outbox SET published_at = now() - interval '2 days' WHERE subject = 'old'");
    db.fixtures().exec("UPDATE kandev_event_outbox SET published_at = now() - interval '1 hour' WHERE subject = 'recent'");

    assertThat(db.tx((Handle h) -> outbox.prunePublished(h, Duration.ofDays(1), 100))).isEqualTo(1);

    assertThat(db.fixtures().strings("SELECT subject FROM kandev_event_outbox ORDER BY seq"))
        .containsExactly("recent", "unpublished");
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(20, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not released in time");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
