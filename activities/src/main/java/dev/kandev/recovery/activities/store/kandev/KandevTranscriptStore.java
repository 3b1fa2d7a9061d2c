package dev.kandev.recovery.activities.store.kandev;

import static dev.kandev.recovery.activities.store.kandev.KandevTables.UTC_NOW;

import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TranscriptEntry;
import dev.kandev.recovery.activities.store.TranscriptMatching;
import dev.kandev.recovery.activities.store.TranscriptMessage;
import dev.kandev.recovery.activities.store.TranscriptStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The transcript in Kandev's {@code task_session_messages}, each replayed message in a turn of its
 * replay in {@code task_session_turns} (Kandev requires one), under Kandev's per-session advisory
 * lock for message inserts. Kandev has no dedupe key; ours are in our {@code kandev_transcript_keys},
 * by message id. A message Kandev wrote has none and is matched by author and content.
 */
public final class KandevTranscriptStore implements TranscriptStore {
  /** Our transcript roles as Kandev's {@code author_type} and {@code type}. */
  private static final Map<String, List<String>> KANDEV_KIND = Map.of(
      "user", List.of("user", "message"),
      "agent", List.of("agent", "message"),
      "thought", List.of("agent", "thinking"),
      "tool", List.of("agent", "tool_call"),
      "system", List.of("agent", "status"));

  private final KandevTables k;
  private final KandevSessionStore sessions;
  private final KandevEventOutbox outbox;

  /** Each replay's turn and messages also go to {@code outbox}, as Kandev's message and turn events. */
  public KandevTranscriptStore(StoreLayout layout, KandevSessionStore sessions, KandevEventOutbox outbox) {
    this.k = new KandevTables(layout);
    this.sessions = sessions;
    this.outbox = outbox;
  }

  @Override
  public int recordReplay(Handle h, String sessionId, List<TranscriptMessage> replayed) {
    if (replayed.isEmpty()) {
      return 0;
    }
    String taskId = sessions.lockRow(h, sessionId).taskId();
    h.createQuery("SELECT pg_advisory_xact_lock(hashtextextended('task-session-turn:' || :sessionId, 0))")
        .bind("sessionId", sessionId)
        .mapTo(String.class)
        .list();
    List<TranscriptEntry> existing = new ArrayList<>(entries(h, sessionId));
    boolean[] matched = new boolean[existing.size()];
    String turnId = null;
    List<String> inserted = new ArrayList<>();
    for (TranscriptMessage m : replayed) {
      int match = TranscriptMatching.findMatch(m, existing, matched);
      if (match >= 0) {
        matched[match] = true;
        continue;
      }
      String key = TranscriptMatching.keyFor(m, existing);
      if (existing.stream().noneMatch(e -> e.dedupeKey().equals(key))) {
        if (turnId == null) {
          turnId = startTurn(h, sessionId, taskId);
        }
        int ordinal = TranscriptMatching.nextOrdinal(existing);
        inserted.add(insert(h, sessionId, taskId, turnId, ordinal, m, key));
        existing.add(new TranscriptEntry(ordinal, m.role(), m.content(), key));
      }
    }
    if (turnId != null) {
      outbox.transcriptReplayed(h, turnId, inserted);
    }
    return inserted.size();
  }

  /** The session's messages in Kandev's order ({@code created_at, id}), with our keys where we wrote them. */
  public List<TranscriptEntry> entries(Handle h, String sessionId) {
    List<TranscriptEntry> entries = new ArrayList<>();
    h.createQuery(k.sql("SELECT m.id, m.author_type, m.type, m.content, x.ordinal, x.dedupe_key"
            + " FROM {k}.task_session_messages m LEFT JOIN kandev_transcript_keys x ON x.message_id = m.id"
            + " WHERE m.task_session_id = :sessionId ORDER BY m.created_at, m.id"))
        .bind("sessionId", sessionId)
        .map((rs, ctx) -> {
          String key = rs.getString("dedupe_key");
          int ordinal = key == null ? entries.size() + 1 : rs.getInt("ordinal");
          return entries.add(new TranscriptEntry(ordinal, role(rs.getString("author_type"), rs.getString("type")),
              rs.getString("content"), key == null ? "kandev:" + rs.getString("id") : key));
        })
        .list();
    return entries;
  }

  private String startTurn(Handle h, String sessionId, String taskId) {
    String turnId = UUID.randomUUID().toString();
    h.createUpdate(k.sql("INSERT INTO {k}.task_session_turns (id, task_session_id, task_id, started_at, completed_at,"
            + " metadata, created_at, updated_at) VALUES (:id, :sessionId, :taskId, " + UTC_NOW + ", " + UTC_NOW + ","
            + " '{\"source\":\"kandev-recovery session/load replay\"}', " + UTC_NOW + ", " + UTC_NOW + ")"))
        .bind("id", turnId)
        .bind("sessionId", sessionId)
        .bind("taskId", taskId)
        .execute();
    return turnId;
  }

  /** Inserts the message and its key; returns its id. */
  private String insert(Handle h, String sessionId, String taskId, String turnId, int ordinal, TranscriptMessage m,
      String key) {
    List<String> kind = KANDEV_KIND.getOrDefault(m.role(), List.of("agent", "message"));
    int promptSeq = kind.get(0).equals("user") ? nextPromptSeq(h, sessionId) : 0;
    String messageId = UUID.randomUUID().toString();
    // After every message of the session, so Kandev's order (created_at, id) is the replay's.
    h.createUpdate(k.sql("INSERT INTO {k}.task_session_messages (id, task_session_id, task_id, turn_id, author_type,"
            + " content, type, metadata, created_at, updated_at, prompt_seq)"
            + " SELECT :id, :sessionId, :taskId, :turnId, :authorType, :content, :type,"
            + " jsonb_build_object('provider_message_id', CAST(:providerId AS text))::text, t.at, t.at, :promptSeq"
            + " FROM (SELECT GREATEST(clock_timestamp() AT TIME ZONE 'UTC', (SELECT max(created_at) + interval '1 microsecond'"
            + " FROM {k}.task_session_messages WHERE task_session_id = :sessionId)) AS at) t"))
        .bind("id", messageId)
        .bind("sessionId", sessionId)
        .bind("taskId", taskId)
        .bind("turnId", turnId)
        .bind("authorType", kind.get(0))
        .bind("content", m.content())
        .bind("type", kind.get(1))
        .bind("providerId", m.providerMessageId())
        .bind("promptSeq", promptSeq)
        .execute();
    h.createUpdate("INSERT INTO kandev_transcript_keys (message_id, session_id, ordinal, dedupe_key)"
            + " VALUES (:id, :sessionId, :ordinal, :key)")
        .bind("id", messageId)
        .bind("sessionId", sessionId)
        .bind("ordinal", ordinal)
        .bind("key", key)
        .execute();
    return messageId;
  }

  /** Kandev numbers user prompts per session from {@code task_session_prompt_seq}. */
  private int nextPromptSeq(Handle h, String sessionId) {
    return h.createQuery(k.sql("INSERT INTO {k}.task_session_prompt_seq AS p (task_session_id, last_seq) VALUES (:sessionId, 1)"
            + " ON CONFLICT (task_session_id) DO UPDATE SET last_seq = p.last_seq + 1 RETURNING last_seq"))
        .bind("sessionId", sessionId)
        .mapTo(Integer.class)
        .one();
  }

  private static String role(String authorType, String type) {
    return KANDEV_KIND.entrySet().stream()
        .filter(e -> e.getValue().equals(List.of(authorType, type)))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElse(authorType + ":" + type);
  }
}
