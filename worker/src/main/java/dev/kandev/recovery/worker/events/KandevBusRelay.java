package dev.kandev.recovery.worker.events;

import dev.kandev.recovery.activities.store.KandevOutboxStore;
import dev.kandev.recovery.activities.store.KandevOutboxStore.PendingEvent;
import dev.kandev.recovery.activities.store.StoreException;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.worker.recovery.Periodic;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes our outbox of Kandev's bus events ({@code kandev_event_outbox}) to Kandev's NATS bus,
 * after the commits that stored them, in order, at least once: in one transaction it becomes the
 * only relay of the schema, takes the oldest unpublished events, publishes each with core NATS on
 * its bare subject (never into Kandev's orchestrator queue group), flushes (the server has them), and
 * only then marks them published. A relay that dies (or loses the server) before its commit leaves
 * them unpublished, and they are published again, with the same envelope id. Published events are
 * pruned after {@link #KEEP_PUBLISHED}.
 */
public final class KandevBusRelay implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KandevBusRelay.class);
  /** Events one transaction publishes; a run goes on until the outbox is empty. */
  static final int BATCH = 200;
  /** How long the server has to confirm a batch (a flush), well below the store's statement timeout. */
  static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(5);
  /** Published events are kept this long (for an operator to look at), then pruned. */
  static final Duration KEEP_PUBLISHED = Duration.ofDays(1);
  static final Duration RELAY_EVERY = Duration.ofSeconds(1);
  static final Duration PRUNE_EVERY = Duration.ofHours(1);
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final int PRUNE_BATCH = 1000;

  private final KandevBusSettings bus;
  private final Transactions transactions;
  private final KandevOutboxStore outbox = new KandevOutboxStore();
  private Connection connection;
  /** Whether the last run could not publish (said once, and once when it can again). */
  private boolean outage;

  public KandevBusRelay(KandevBusSettings bus, Transactions transactions) {
    this.bus = bus;
    this.transactions = transactions;
  }

  /**
   * Publishes what waits in the outbox, batch after batch, until it is empty or another relay has it;
   * returns how many events this run published. A server that cannot be reached or does not confirm
   * in time, or a database that fails, costs nothing but time: the events stay unpublished for the
   * next run (logged once per outage).
   */
  public synchronized int relayOnce() {
    int published = 0;
    try {
      Connection nats = connected();
      while (true) {
        int batch = transactions.inTransaction("publish Kandev's bus events", h -> {
          if (!outbox.becomeTheRelay(h)) {
            return 0;
          }
          List<PendingEvent> events = outbox.nextUnpublished(h, BATCH);
          for (PendingEvent event : events) {
            publish(nats, event);
          }
          if (!events.isEmpty()) {
            flush(nats);
          }
          outbox.markPublished(h, events);
          return events.size();
        });
        published += batch;
        if (batch < BATCH) {
          break;
        }
      }
      if (outage) {
        log.info("Kandev's bus events are published again to {}", bus.display());
        outage = false;
      }
    } catch (BusUnavailableException | StoreException e) {
      if (!outage) {
        String where = e instanceof StoreException ? "the outbox" : "Kandev's NATS bus at " + bus.display();
        log.warn("cannot publish Kandev's bus events ({}: {}); they wait in the outbox and are published once both"
            + " answer", where, e.getMessage());
        outage = true;
      }
    }
    return published;
  }

  /**
   * One event on its bare subject. An event larger than the server takes would block every later
   * one for good: it is logged and passed over, as Kandev's own publisher drops an event the server
   * refuses. A connection that closed under the batch fails the batch.
   */
  private static void publish(Connection nats, PendingEvent event) {
    byte[] envelope = event.envelope().getBytes(StandardCharsets.UTF_8);
    long maxPayload = nats.getServerInfo() == null ? Long.MAX_VALUE : nats.getServerInfo().getMaxPayload();
    if (maxPayload > 0 && envelope.length > maxPayload) {
      log.error("Kandev bus event {} ({}) is {} bytes, more than the server's max_payload of {}: not published",
          event.eventId(), event.subject(), envelope.length, maxPayload);
      return;
    }
    try {
      nats.publish(event.subject(), envelope);
    } catch (IllegalStateException e) {
      throw new BusUnavailableException("the connection closed: " + e.getMessage());
    }
  }

  /**
   * Runs a relay in the background until closed: a run every {@link #RELAY_EVERY} (so an event is on
   * the bus about a second after its commit), pruning every {@link #PRUNE_EVERY}.
   */
  public static Background runInBackground(KandevBusSettings bus, Transactions transactions) {
    KandevBusRelay relay = new KandevBusRelay(bus, transactions);
    Periodic relaying = Periodic.every(RELAY_EVERY, "kandev-bus-relay", relay::relayOnce);
    Periodic pruning = Periodic.every(PRUNE_EVERY, "kandev-bus-outbox-prune", relay::prunePublished);
    return () -> {
      relaying.close();
      pruning.close();
      relay.close();
    };
  }

  /** Deletes the events published more than {@link #KEEP_PUBLISHED} ago; returns how many. */
  public int prunePublished() {
    int pruned = 0;
    int batch;
    do {
      batch = transactions.inTransaction("prune published Kandev bus events",
          h -> outbox.prunePublished(h, KEEP_PUBLISHED, PRUNE_BATCH));
      pruned += batch;
    } while (batch == PRUNE_BATCH);
    return pruned;
  }

  /** How many events wait to be published. */
  public long unpublished() {
    return transactions.inSnapshot("count unpublished Kandev bus events", outbox::unpublished);
  }

  private Connection connected() {
    if (connection != null && connection.getStatus() == Connection.Status.CLOSED) {
      connection = null; // closed for good (refused credentials, say): connect anew
    }
    if (connection != null && connection.getStatus() == Connection.Status.CONNECTED) {
      return connection;
    }
    if (connection != null) {
      // Reconnecting on its own (jnats does, without end): a batch published now would wait in its buffer.
      throw new BusUnavailableException("the connection is " + connection.getStatus());
    }
    Options options = Options.builder()
        .servers(bus.serverUrls().toArray(String[]::new))
        .connectionName(bus.clientId())
        .connectionTimeout(CONNECT_TIMEOUT)
        .maxReconnects(-1)
        .errorListener(new ScrubbedErrors(bus))
        .build();
    try {
      connection = Nats.connect(options);
      return connection;
    } catch (IOException e) {
      throw new BusUnavailableException(bus.scrub(e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BusUnavailableException("interrupted while connecting");
    }
  }

  private static void flush(Connection nats) {
    try {
      nats.flush(FLUSH_TIMEOUT);
    } catch (TimeoutException e) {
      throw new BusUnavailableException("the server did not confirm within " + FLUSH_TIMEOUT.toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BusUnavailableException("interrupted while waiting for the server");
    }
  }

  @Override
  public synchronized void close() {
    if (connection == null) {
      return;
    }
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    connection = null;
  }

  /** A relay running in the background; closing it stops it. */
  public interface Background extends AutoCloseable {
    @Override
    void close();
  }

  /** The bus did not take a batch; the batch's transaction rolls back and the events stay unpublished. */
  static final class BusUnavailableException extends RuntimeException {
    BusUnavailableException(String message) {
      super(message);
    }
  }

  /** jnats' asynchronous errors (a refused authorization, say), in our log, without the URL's credentials. */
  private record ScrubbedErrors(KandevBusSettings bus) implements ErrorListener {
    @Override
    public void errorOccurred(Connection conn, String error) {
      log.warn("Kandev's NATS bus at {}: {}", bus.display(), bus.scrub(error));
    }

    /** Reconnect attempts fail this way every few seconds of an outage, which the relay reports once. */
    @Override
    public void exceptionOccurred(Connection conn, Exception exp) {
      log.debug("Kandev's NATS bus at {}: {}", bus.display(), bus.scrub(String.valueOf(exp.getMessage())));
    }
  }
}
