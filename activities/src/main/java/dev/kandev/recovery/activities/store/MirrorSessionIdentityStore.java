package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.Fence;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Update;

/**
 * The only writer of the resume token and its mirror. Its API cannot blank them by accident: a
 * replacement needs a non-blank id, and clearing is a separate, explicitly named operation for the
 * user's Start fresh choice. Both copies always change together, in the caller's transaction.
 */
public final class MirrorSessionIdentityStore implements SessionIdentityStore {
  private static final RowMapper<SessionIdentity> SESSION_IDENTITY =
      (rs, ctx) -> new SessionIdentity(rs.getString("resume_token"), rs.getString("acp_session_id"));

  public SessionIdentity read(Handle h, String sessionId) {
    return h.createQuery("SELECT COALESCE(e.resume_token, '') AS resume_token,"
            + " COALESCE(s.metadata #>> '{acp,session_id}', '') AS acp_session_id"
            + " FROM task_sessions s LEFT JOIN executors_running e ON e.session_id = s.id WHERE s.id = :sessionId")
        .bind("sessionId", sessionId)
        .map(SESSION_IDENTITY)
        .findOne()
        .orElseThrow(() -> new UnknownSessionException(sessionId));
  }

  /** After a successful ACP {@code session/new}: both copies become {@code newToken}. */
  public void replaceAfterNewSession(Handle h, String sessionId, String newToken, Fence fence) {
    if (newToken == null || newToken.isBlank()) {
      throw new IllegalArgumentException("a new provider session id must not be blank");
    }
    write(h, sessionId, newToken, fence);
  }

  /** The user chose Start fresh: both copies are cleared. Nothing else clears them. */
  public void clearForFreshStart(Handle h, String sessionId, Fence fence) {
    write(h, sessionId, "", fence);
  }

  private static void write(Handle h, String sessionId, String token, Fence fence) {
    MirrorSessionStore.lockRow(h, sessionId);
    if (!ResumeLockStore.holds(h, sessionId, fence)) {
      throw new StaleFenceException(sessionId, fence);
    }
    h.createUpdate("INSERT INTO executors_running (session_id, task_id, agent_id, resume_token)"
            + " SELECT id, task_id, agent_id, :token FROM task_sessions WHERE id = :sessionId"
            + " ON CONFLICT (session_id) DO UPDATE SET resume_token = EXCLUDED.resume_token, updated_at = now()")
        .bind("token", token)
        .bind("sessionId", sessionId)
        .execute();
    Update mirror = h.createUpdate("UPDATE task_sessions SET " + (token.isEmpty()
            ? "metadata = CASE WHEN jsonb_typeof(metadata -> 'acp') = 'object'"
                + " THEN jsonb_set(metadata, '{acp}', (metadata -> 'acp') - 'session_id') ELSE metadata - 'acp' END"
            : "metadata = jsonb_set(metadata, '{acp}', CASE WHEN jsonb_typeof(metadata -> 'acp') = 'object'"
                + " THEN metadata -> 'acp' ELSE '{}'::jsonb END || jsonb_build_object('session_id', :token::text))")
            + ", updated_at = now() WHERE id = :sessionId")
        .bind("sessionId", sessionId);
    if (!token.isEmpty()) {
      mirror.bind("token", token);
    }
    mirror.execute();
  }
}
