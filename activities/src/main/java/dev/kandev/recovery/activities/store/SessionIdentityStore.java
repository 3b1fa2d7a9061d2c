package dev.kandev.recovery.activities.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The only writer of the resume token and its mirror. Its API cannot blank them by accident: a
 * replacement needs a non-blank id, and clearing is a separate, explicitly named operation for the
 * user's Start fresh choice. Both copies always change together, in one transaction.
 */
public final class SessionIdentityStore {
  private final DataSource dataSource;

  public SessionIdentityStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  public SessionIdentity read(String sessionId) {
    return Sql.inTransaction(
        dataSource,
        "read identity of session " + sessionId,
        c -> {
          try (PreparedStatement select =
              c.prepareStatement(
                  "SELECT COALESCE(e.resume_token, ''), COALESCE(s.metadata #>> '{acp,session_id}', '')"
                      + " FROM task_sessions s LEFT JOIN executors_running e ON e.session_id = s.id"
                      + " WHERE s.id = ?")) {
            select.setString(1, sessionId);
            try (ResultSet rs = select.executeQuery()) {
              if (!rs.next()) {
                throw new UnknownSessionException(sessionId);
              }
              return new SessionIdentity(rs.getString(1), rs.getString(2));
            }
          }
        });
  }

  /** After a successful ACP {@code session/new}: both copies become {@code newToken}. */
  public void replaceAfterNewSession(String sessionId, String newToken, Fence fence) {
    if (newToken == null || newToken.isBlank()) {
      throw new IllegalArgumentException("a new provider session id must not be blank");
    }
    write(sessionId, newToken, fence, "replace identity of session " + sessionId);
  }

  /** The user chose Start fresh: both copies are cleared. Nothing else clears them. */
  public void clearForFreshStart(String sessionId, Fence fence) {
    write(sessionId, "", fence, "clear identity of session " + sessionId + " for a fresh start");
  }

  private void write(String sessionId, String token, Fence fence, String what) {
    Sql.inTransaction(
        dataSource,
        what,
        c -> {
          lockSession(c, sessionId);
          if (!SessionStore.holdsFence(c, sessionId, fence)) {
            throw new StaleFenceException(sessionId, fence);
          }
          try (PreparedStatement upsert =
              c.prepareStatement(
                  "INSERT INTO executors_running (session_id, task_id, agent_id, resume_token)"
                      + " SELECT id, task_id, agent_id, ? FROM task_sessions WHERE id = ?"
                      + " ON CONFLICT (session_id) DO UPDATE SET resume_token = EXCLUDED.resume_token,"
                      + " updated_at = now()")) {
            upsert.setString(1, token);
            upsert.setString(2, sessionId);
            upsert.executeUpdate();
          }
          String mirror =
              token.isEmpty()
                  ? "metadata = CASE WHEN jsonb_typeof(metadata -> 'acp') = 'object'"
                      + " THEN jsonb_set(metadata, '{acp}', (metadata -> 'acp') - 'session_id') ELSE metadata - 'acp' END"
                  : "metadata = jsonb_set(metadata, '{acp}', CASE WHEN jsonb_typeof(metadata -> 'acp') = 'object'"
                      + " THEN metadata -> 'acp' ELSE '{}'::jsonb END || jsonb_build_object('session_id', ?::text))";
          try (PreparedStatement update =
              c.prepareStatement("UPDATE task_sessions SET " + mirror + ", updated_at = now() WHERE id = ?")) {
            int i = 1;
            if (!token.isEmpty()) {
              update.setString(i++, token);
            }
            update.setString(i, sessionId);
            update.executeUpdate();
          }
          return null;
        });
  }

  private static void lockSession(Connection c, String sessionId) throws SQLException {
    try (PreparedStatement select =
        c.prepareStatement("SELECT 1 FROM task_sessions WHERE id = ? FOR UPDATE")) {
      select.setString(1, sessionId);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new UnknownSessionException(sessionId);
        }
      }
    }
  }
}
