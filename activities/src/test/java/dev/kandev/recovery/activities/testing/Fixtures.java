package dev.kandev.recovery.activities.testing;

import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.workflows.model.SessionState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Test data written with plain SQL, so a test can start from any state (e.g. a FAILED session with
 * a stored token) without going through the code under test. In the kandev layout the rows are
 * Kandev's, written as Kandev writes them, and plain SQL sees Kandev's schema first on its search
 * path, then ours: {@code tasks} is Kandev's, {@code session_events} ours.
 */
public final class Fixtures {
  private final DataSource dataSource;
  private final StoreLayout layout;

  Fixtures(DataSource dataSource) {
    this(dataSource, StoreLayout.MIRROR);
  }

  /** On {@code dataSource}, whose search path is the layout's: ours, or Kandev's schema and then ours. */
  Fixtures(DataSource dataSource, StoreLayout layout) {
    this.dataSource = dataSource;
    this.layout = layout;
  }

  /** Where these fixtures write Kandev's rows. */
  public StoreLayout layout() {
    return layout;
  }

  public Fixtures task(String taskId, String workspaceId, String taskState) {
    if (layout.isKandev()) {
      return exec("INSERT INTO tasks (id, workspace_id, title, state, created_at, updated_at)"
          + " VALUES (?, ?, 'test task', ?, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')", taskId, workspaceId, taskState);
    }
    return exec("INSERT INTO tasks (id, workspace_id, title, state) VALUES (?, ?, 'test task', ?)",
        taskId, workspaceId, taskState);
  }

  /** A session in {@code state} with metadata {@code metadataJson}. */
  public Fixtures session(String sessionId, String taskId, String agentId, SessionState state, String metadataJson) {
    if (layout.isKandev()) {
      return exec("INSERT INTO task_sessions (id, task_id, agent_profile_id, state, metadata, started_at, updated_at,"
              + " is_primary) VALUES (?, ?, ?, ?, ?, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', 1)",
          sessionId, taskId, agentId, state.name(), metadataJson);
    }
    return exec(
        "INSERT INTO task_sessions (id, task_id, agent_id, state, metadata) VALUES (?, ?, ?, ?, ?::jsonb)",
        sessionId, taskId, agentId, state.name(), metadataJson);
  }

  /** Both persisted identities set to {@code token}, as after an earlier successful session/new. */
  public Fixtures storedToken(String sessionId, String token) {
    if (layout.isKandev()) {
      // Kandev's lifecycle upsert and its SetSessionMetadataKey("acp", …).
      exec("INSERT INTO executors_running (id, session_id, task_id, executor_id, status, resumable, resume_token,"
              + " created_at, updated_at) SELECT id, id, task_id, '', 'stopped', 1, ?, now() AT TIME ZONE 'UTC',"
              + " now() AT TIME ZONE 'UTC' FROM task_sessions WHERE id = ?"
              + " ON CONFLICT (session_id) DO UPDATE SET resume_token = EXCLUDED.resume_token",
          token, sessionId);
      return exec("UPDATE task_sessions SET metadata = jsonb_set(CASE WHEN metadata IS NULL OR metadata IN ('null', '')"
              + " THEN '{}'::jsonb ELSE metadata::jsonb END, ARRAY['acp'], jsonb_build_object('session_id', ?::text),"
              + " true)::text WHERE id = ?",
          token, sessionId);
    }
    exec("INSERT INTO executors_running (session_id, task_id, agent_id, resume_token, status)"
            + " SELECT id, task_id, agent_id, ?, 'stopped' FROM task_sessions WHERE id = ?"
            + " ON CONFLICT (session_id) DO UPDATE SET resume_token = EXCLUDED.resume_token",
        token, sessionId);
    return exec("UPDATE task_sessions SET metadata = jsonb_set(metadata, '{acp}',"
            + " jsonb_build_object('session_id', ?::text)) WHERE id = ?",
        token, sessionId);
  }

  /** Shorthand: task {@code t-<session>} in workspace {@code ws-1} with one session. */
  public Fixtures sessionWithToken(String sessionId, SessionState state, String token) {
    String taskId = "t-" + sessionId;
    task(taskId, "ws-1", "REVIEW");
    session(sessionId, taskId, "test-agent", state, "{}");
    return storedToken(sessionId, token);
  }

  public long count(String sql, Object... args) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement statement = c.prepareStatement(sql)) {
      bind(statement, args);
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public String string(String sql, Object... args) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement statement = c.prepareStatement(sql)) {
      bind(statement, args);
      try (ResultSet rs = statement.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The first column of every row. */
  public List<String> strings(String sql, Object... args) {
    List<String> out = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement statement = c.prepareStatement(sql)) {
      bind(statement, args);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  public Fixtures exec(String sql, Object... args) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement statement = c.prepareStatement(sql)) {
      bind(statement, args);
      statement.execute();
      return this;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A whole table as text rows, to compare before and after an operation that must change nothing. */
  public String dump(String table) {
    StringBuilder out = new StringBuilder();
    try (Connection c = dataSource.getConnection();
        Statement statement = c.createStatement();
        ResultSet rs = statement.executeQuery("SELECT t::text FROM " + table + " t ORDER BY 1")) {
      while (rs.next()) {
        out.append(rs.getString(1)).append('\n');
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out.toString();
  }

  private static void bind(PreparedStatement statement, Object... args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      statement.setObject(i + 1, args[i]);
    }
  }
}
