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
    try (OpenTransaction<Void> slow = new OpenTransaction<>(h -> {
      outbox.append(h, event("slow"));
      return null;
    })) {
      db.run((Handle h) -> outbox.append(h, event("fast")));
      List<PendingEvent> seen = db.tx((Handle h) -> outbox.nextUnpublished(h, 10));
      assertThat(seen).extracting(PendingEvent::subject).containsExactly("fast");
      db.run((Handle h) -> outbox.markPublished(h, seen));
      slow.commit();

      assertThat(db.tx((Handle h) -> outbox.nextUnpublished(h, 10))).extracting(PendingEvent::subject).containsExactly("slow");
    }
  }

  @Test
  void onlyOneTransactionIsTheRelayAtATime() throws Exception {
    try (OpenTransaction<Boolean> first = new OpenTransaction<>(outbox::becomeTheRelay)) {
      assertThat(db.tx((Handle h) -> outbox.becomeTheRelay(h))).as("a second relay while the first runs").isFalse();
      assertThat(first.commit()).isTrue();
      assertThat(db.tx((Handle h) -> outbox.becomeTheRelay(h))).as("after the first one's transaction ended").isTrue();
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

  /** A transaction on another thread that has done its work and stays open until {@link #commit}. */
  private final class OpenTransaction<T> implements AutoCloseable {
    private final ExecutorService thread = Executors.newSingleThreadExecutor();
    private final CountDownLatch done = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final Future<T> result;

    OpenTransaction(Transactions.Work<T> work) throws InterruptedException {
      result = thread.submit(() -> db.tx((Handle h) -> {
        T value = work.run(h);
        done.countDown();
        await(release);
        return value;
      }));
      if (!done.await(10, TimeUnit.SECONDS)) {
        close();
        throw new AssertionError("the transaction on the other thread did not do its work in time");
      }
    }

    /** Lets the transaction commit; what its work returned. */
    T commit() throws Exception {
      release.countDown();
      return result.get(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
      release.countDown();
      thread.shutdownNow();
    }
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
