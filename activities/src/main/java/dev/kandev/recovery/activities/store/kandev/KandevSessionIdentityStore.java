package dev.kandev.recovery.activities.store.kandev;

import static dev.kandev.recovery.activities.store.kandev.KandevTables.UTC_NOW;
import static dev.kandev.recovery.activities.store.kandev.KandevTables.metadata;

import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.StaleFenceException;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.UnknownSessionException;
import dev.kandev.recovery.workflows.model.Fence;
import org.jdbi.v3.core.Handle;

/**
 * The resume token where Kandev keeps it: {@code executors_running.resume_token} (keyed by Kandev's
 * {@code session_id}; a row is added only when a token must be stored and Kandev has none, whole, as
 * {@link KandevExecutorsRunningStore} shows our execution) and its mirror {@code task_sessions.metadata.acp.session_id},
 * the {@code acp} object merged key by key so Kandev's other {@code acp} keys survive.
 */
public final class KandevSessionIdentityStore implements SessionIdentityStore {
  private final KandevTables k;
  private final KandevSessionStore sessions;

  public KandevSessionIdentityStore(StoreLayout layout, KandevSessionStore sessions) {
    this.k = new KandevTables(layout);
    this.sessions = sessions;
  }

  @Override
  public SessionIdentity read(Handle h, String sessionId) {
    return h.createQuery(k.sql("SELECT COALESCE(e.resume_token, '') AS resume_token,"
            + " COALESCE(" + metadata("s") + " #>> '{acp,session_id}', '') AS acp_session_id"
            + " FROM {k}.task_sessions s LEFT JOIN {k}.executors_running e ON e.session_id = s.id WHERE s.id = :sessionId"))
        .bind("sessionId", sessionId)
        .map((rs, ctx) -> new SessionIdentity(rs.getString("resume_token"), rs.getString("acp_session_id")))
        .findOne()
        .orElseThrow(() -> new UnknownSessionException(sessionId));
  }

  @Override
  public void replaceAfterNewSession(Handle h, String sessionId, String newToken, Fence fence) {
    if (newToken == null || newToken.isBlank()) {
      throw new IllegalArgumentException("a new provider session id must not be blank");
    }
    sessions.lockRow(h, sessionId);
    requireFence(h, sessionId, fence);
    // Kandev has no row (none yet, or its boot deleted it): a whole one, as Kandev's upsert writes it,
    // showing our current execution (KandevExecutorsRunningStore), never a bare row.
    h.createUpdate(k.sql("INSERT INTO {k}.executors_running AS er (id, session_id, task_id, executor_id,"
            + " execution_profile_id, runtime, status, resumable, resume_token, agent_execution_id, pid, local_pid,"
            + " error_message, metadata, last_seen_at, created_at, updated_at)"
            + " SELECT s.id, s.id, s.task_id, COALESCE(s.executor_id, ''), COALESCE(s.agent_profile_id, ''), :runtime,"
            + " COALESCE(CASE a.status WHEN 'running' THEN 'ready' ELSE a.status END, 'stopped'), 1, :token,"
            + " COALESCE(a.agent_execution_id, ''), COALESCE(a.pid, 0), 0, COALESCE(split_part(a.error_message, E'\\n', 1), ''),"
            + " '{}', " + UTC_NOW + ", " + UTC_NOW + ", " + UTC_NOW
            + " FROM {k}.task_sessions s LEFT JOIN kandev_agent_executions a ON a.session_id = s.id WHERE s.id = :sessionId"
            + " ON CONFLICT (session_id) DO UPDATE SET resume_token = EXCLUDED.resume_token, updated_at = EXCLUDED.updated_at"))
        .bind("runtime", KandevExecutorsRunningStore.RUNTIME)
        .bind("token", newToken)
        .bind("sessionId", sessionId)
        .execute();
    h.createUpdate(k.sql("UPDATE {k}.task_sessions s SET metadata = jsonb_set(" + metadata("s") + ", '{acp}',"
            + " CASE WHEN jsonb_typeof(" + metadata("s") + " -> 'acp') = 'object' THEN " + metadata("s") + " -> 'acp'"
            + " ELSE '{}'::jsonb END || jsonb_build_object('session_id', :token::text), true)::text,"
            + " updated_at = " + UTC_NOW + " WHERE s.id = :sessionId"))
        .bind("token", newToken)
        .bind("sessionId", sessionId)
        .execute();
  }

  @Override
  public void clearForFreshStart(Handle h, String sessionId, Fence fence) {
    sessions.lockRow(h, sessionId);
    requireFence(h, sessionId, fence);
    h.createUpdate(k.sql("UPDATE {k}.executors_running SET resume_token = '', updated_at = " + UTC_NOW
            + " WHERE session_id = :sessionId AND resume_token <> ''"))
        .bind("sessionId", sessionId)
        .execute();
    h.createUpdate(k.sql("UPDATE {k}.task_sessions s SET metadata = jsonb_set(" + metadata("s") + ", '{acp}',"
            + " (" + metadata("s") + " -> 'acp') - 'session_id', true)::text, updated_at = " + UTC_NOW
            + " WHERE s.id = :sessionId AND jsonb_typeof(" + metadata("s") + " -> 'acp') = 'object'"
            + " AND " + metadata("s") + " -> 'acp' -> 'session_id' IS NOT NULL"))
        .bind("sessionId", sessionId)
        .execute();
  }

  private static void requireFence(Handle h, String sessionId, Fence fence) {
    if (!ResumeLockStore.holds(h, sessionId, fence)) {
      throw new StaleFenceException(sessionId, fence);
    }
  }
}
