package dev.kandev.recovery.activities.store;

import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * The session transcript in {@code session_messages}. Every row has a dedupe key: {@code id:<provider
 * message id>} when the agent names its message, else {@code hash:<sha256(role, content)>:<n>} for
 * the n-th identical message. A {@code session/load} replay is matched against what is persisted,
 * so loading a session any number of times never duplicates a message. Every method runs on the
 * caller's transaction {@link Handle}.
 */
public final class MirrorTranscriptStore implements TranscriptStore {
  private static final RowMapper<TranscriptEntry> TRANSCRIPT_ENTRY = (rs, ctx) -> new TranscriptEntry(
      rs.getInt("ordinal"), rs.getString("role"), rs.getString("content"), rs.getString("dedupe_key"));

  /**
   * Records what a {@code session/load} replayed. A replayed message that matches a persisted one
   * not yet matched in this replay (same provider id, else same role and content) is recognised and
   * skipped; only messages the transcript lacks are appended.
   *
   * @return how many rows were inserted
   */
  public int recordReplay(Handle h, String sessionId, List<TranscriptMessage> replayed) {
    return append(h, sessionId, replayed, true);
  }

  /**
   * Appends what the transcript lacks, under the session's row lock; a replay first matches persisted
   * messages. Kandev appends a live turn's messages ({@code replay} false), keyed as {@link #keyFor}
   * says; the tests that play Kandev do the same ({@code TestStores.appendLive}).
   */
  static int append(Handle h, String sessionId, List<TranscriptMessage> messages, boolean replay) {
    if (messages.isEmpty()) {
      return 0;
    }
    MirrorSessionStore.lockRow(h, sessionId);
    List<TranscriptEntry> existing = new ArrayList<>(entries(h, sessionId));
    boolean[] matched = new boolean[existing.size()];
    int inserted = 0;
    for (TranscriptMessage m : messages) {
      int match = replay ? TranscriptMatching.findMatch(m, existing, matched) : -1;
      if (match >= 0) {
        matched[match] = true;
        continue;
      }
      String key = TranscriptMatching.keyFor(m, existing);
      if (existing.stream().noneMatch(e -> e.dedupeKey().equals(key))) {
        existing.add(insert(h, sessionId, TranscriptMatching.nextOrdinal(existing), m, key));
        inserted++;
      }
    }
    return inserted;
  }

  private static TranscriptEntry insert(Handle h, String sessionId, int ordinal, TranscriptMessage m, String key) {
    h.createUpdate("INSERT INTO session_messages (session_id, ordinal, role, content, dedupe_key)"
            + " VALUES (:sessionId, :ordinal, :role, :content, :key)")
        .bind("sessionId", sessionId)
        .bind("ordinal", ordinal)
        .bind("role", m.role())
        .bind("content", m.content())
        .bind("key", key)
        .execute();
    return new TranscriptEntry(ordinal, m.role(), m.content(), key);
  }

  /** The session's transcript, in order. */
  static List<TranscriptEntry> entries(Handle h, String sessionId) {
    return h.createQuery("SELECT ordinal, role, content, dedupe_key FROM session_messages"
            + " WHERE session_id = :sessionId ORDER BY ordinal")
        .bind("sessionId", sessionId)
        .map(TRANSCRIPT_ENTRY)
        .list();
  }

}
