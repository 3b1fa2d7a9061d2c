package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.activities.events.KandevEvent;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * Our outbox of Kandev's bus events, {@code kandev_event_outbox}: a transition appends its events
 * in its own transaction; the relay claims the unpublished ones in order, publishes them and marks
 * them published; published ones are pruned. Every method runs on the caller's transaction {@link Handle}.
 */
public final class KandevOutboxStore {
  /** An event waiting in the outbox: its place in the order and what goes on the wire. */
  public record PendingEvent(long seq, UUID eventId, String subject, String envelope) {}

  private static final RowMapper<PendingEvent> PENDING = (rs, ctx) -> new PendingEvent(
      rs.getLong("seq"), rs.getObject("event_id", UUID.class), rs.getString("subject"), rs.getString("envelope"));

  /** Stores {@code event}, to be published after this transaction commits (or never, if it rolls back). */
  public void append(Handle h, KandevEvent event) {
    h.createUpdate("INSERT INTO kandev_event_outbox (event_id, subject, envelope) VALUES (:id, :subject, :envelope)")
        .bind("id", event.id())
        .bind("subject", event.subject())
        .bind("envelope", event.envelope())
        .execute();
  }

  /**
   * Makes this transaction the only relay of this schema's outbox until it ends; false if another
   * one is relaying (never waits). One relay at a time is what keeps the published order the
   * outbox's order: two relays could each publish a batch, the later one first.
   */
  public boolean becomeTheRelay(Handle h) {
    return h.createQuery("SELECT pg_try_advisory_xact_lock(hashtext('kandev_event_outbox'), hashtext(current_schema()))")
        .mapTo(Boolean.class)
        .one();
  }

  /**
   * The oldest {@code limit} unpublished events, in order. An event whose transaction commits after a
   * later-numbered one was read comes in a later call: nothing is skipped, and the events of one
   * session (or task) are numbered in commit order, since each appends under that row's lock.
   */
  public List<PendingEvent> nextUnpublished(Handle h, int limit) {
    return h.createQuery("SELECT seq, event_id, subject, envelope FROM kandev_event_outbox"
            + " WHERE published_at IS NULL ORDER BY seq LIMIT :limit")
        .bind("limit", limit)
        .map(PENDING)
        .list();
  }

  /** Records {@code published} as published: a relay that dies before this publishes them again. */
  public void markPublished(Handle h, List<PendingEvent> published) {
    if (published.isEmpty()) {
      return;
    }
    h.createUpdate("UPDATE kandev_event_outbox SET published_at = now() WHERE seq = ANY(:seqs) AND published_at IS NULL")
        .bind("seqs", published.stream().mapToLong(PendingEvent::seq).toArray())
        .execute();
  }

  /** How many events wait to be published. */
  public long unpublished(Handle h) {
    return h.createQuery("SELECT count(*) FROM kandev_event_outbox WHERE published_at IS NULL").mapTo(Long.class).one();
  }

  /** Deletes at most {@code limit} events published more than {@code age} ago; returns how many. */
  public int prunePublished(Handle h, Duration age, int limit) {
    return h.createUpdate("DELETE FROM kandev_event_outbox WHERE seq IN (SELECT seq FROM kandev_event_outbox"
            + " WHERE published_at < now() - make_interval(secs => :seconds) ORDER BY seq LIMIT :limit)")
        .bind("seconds", (double) age.toSeconds())
        .bind("limit", limit)
        .execute();
  }
}
