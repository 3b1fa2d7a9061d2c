package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.workflows.model.SessionState;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Reads sessions and changes their state only through guarded, compare-and-set transitions that
 * publish a {@code session_events} row (and a {@code pg_notify}) in the same transaction. There is
 * no unguarded state write.
 */
public final class SessionStore {
  public static final String EVENTS_CHANNEL = "session_events";

  /** Keys a guarded metadata write may set; {@code acp} belongs to {@link SessionIdentityStore}. */
  private static final Pattern METADATA_KEY = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  private static final String SELECT_SESSION =
      "SELECT id, task_id, agent_id, workspace_path, state, error_message, metadata::text, updated_at,"
          + " executor_host FROM task_sessions WHERE id = ?";

  private final DataSource dataSource;
  private final ObjectMapper json;

  public SessionStore(DataSource dataSource, ObjectMapper json) {
    this.dataSource = dataSource;
    this.json = json;
  }

  public Optional<SessionRecord> find(String sessionId) {
    return Sql.inTransaction(dataSource, "read session " + sessionId, c -> read(c, sessionId));
  }

  /**
   * Binds a session not bound to a host yet to {@code host}; a bound session keeps its host. Returns
   * the session's host after the call.
   */
  public String bindHost(String sessionId, String host) {
    return Sql.inTransaction(dataSource, "bind session " + sessionId + " to host " + host, c -> {
      try (PreparedStatement update = c.prepareStatement(
          "UPDATE task_sessions SET executor_host = CASE WHEN executor_host = '' THEN ? ELSE executor_host END"
              + " WHERE id = ? RETURNING executor_host")) {
        update.setString(1, host);
        update.setString(2, sessionId);
        try (ResultSet rs = update.executeQuery()) {
          if (!rs.next()) {
            throw new UnknownSessionException(sessionId);
          }
          return rs.getString(1);
        }
      }
    });
  }

  public SessionRecord get(String sessionId) {
    return find(sessionId).orElseThrow(() -> new UnknownSessionException(sessionId));
  }

  /**
   * Moves the session from one of {@code expected} to {@code target} if, and only if, it is in one of
   * them now (and, for a fenced write, its resume lock still carries the fence). Terminal states stay
   * terminal: only a resume may leave FAILED or CANCELLED, towards STARTING; COMPLETED never changes.
   */
  public TransitionResult transition(
      String sessionId,
      Set<SessionState> expected,
      SessionState target,
      String reason,
      String errorMessage,
      Fence fence) {
    validateTransition(expected, target);
    return Sql.inTransaction(
        dataSource,
        "transition session " + sessionId + " to " + target,
        c -> {
          SessionRow row = lockRow(c, sessionId);
          if (!expected.contains(row.state)) {
            return new TransitionResult(TransitionResult.Outcome.STATE_MISMATCH, row.state, row.state);
          }
          if (!holdsFence(c, sessionId, fence)) {
            return new TransitionResult(TransitionResult.Outcome.FENCED, row.state, row.state);
          }
          // The compare-and-set itself; the locked read above only explains a loss.
          try (PreparedStatement update =
              c.prepareStatement(
                  "UPDATE task_sessions s SET state = ?, error_message = ?, updated_at = now(),"
                      + " completed_at = CASE WHEN ? THEN now() END"
                      + " WHERE s.id = ? AND s.state = ANY(?) AND "
                      + Sql.FENCE_PREDICATE)) {
            update.setString(1, target.name());
            update.setString(2, errorMessage == null ? "" : errorMessage);
            update.setBoolean(3, target.isTerminal());
            update.setString(4, sessionId);
            update.setArray(5, stateArray(c, expected));
            update.setLong(6, fence.token());
            update.setLong(7, fence.token());
            if (update.executeUpdate() != 1) {
              throw new SQLException("compare-and-set on a locked row lost; this is a bug");
            }
          }
          publish(c, sessionId, row.taskId, row.state, target, reason, errorMessage);
          return new TransitionResult(TransitionResult.Outcome.APPLIED, row.state, target);
        });
  }

  /**
   * Sets (or with a {@code null} value removes) the top-level metadata entry {@code key} if the
   * session is in one of {@code expected} and, for a fenced write, still under that lock.
   */
  public GuardedWriteResult writeMetadataEntry(
      String sessionId, String key, JsonNode value, Set<SessionState> expected, Fence fence) {
    if (!METADATA_KEY.matcher(key).matches() || key.equals("acp")) {
      throw new IllegalArgumentException(
          "metadata key '" + key + "' is not writable here (lowercase identifier, not 'acp')");
    }
    if (expected.isEmpty()) {
      throw new IllegalArgumentException("a guarded write needs at least one expected state");
    }
    String jsonValue = value == null ? null : toJson(value);
    return Sql.inTransaction(
        dataSource,
        "write metadata." + key + " of session " + sessionId,
        c -> {
          SessionRow row = lockRow(c, sessionId);
          if (!expected.contains(row.state)) {
            return new GuardedWriteResult(TransitionResult.Outcome.STATE_MISMATCH, row.state);
          }
          if (!holdsFence(c, sessionId, fence)) {
            return new GuardedWriteResult(TransitionResult.Outcome.FENCED, row.state);
          }
          String set =
              value == null
                  ? "metadata = metadata - ?::text"
                  : "metadata = jsonb_set(metadata, ARRAY[?::text], ?::jsonb, true)";
          try (PreparedStatement update =
              c.prepareStatement(
                  "UPDATE task_sessions s SET " + set + ", updated_at = now()"
                      + " WHERE s.id = ? AND s.state = ANY(?) AND " + Sql.FENCE_PREDICATE)) {
            int i = 1;
            update.setString(i++, key);
            if (value != null) {
              update.setString(i++, jsonValue);
            }
            update.setString(i++, sessionId);
            update.setArray(i++, stateArray(c, expected));
            update.setLong(i++, fence.token());
            update.setLong(i, fence.token());
            if (update.executeUpdate() != 1) {
              throw new SQLException("guarded write on a locked row lost; this is a bug");
            }
          }
          return new GuardedWriteResult(TransitionResult.Outcome.APPLIED, row.state);
        });
  }

  /** The ids of the sessions that are in {@code state} now. */
  public List<String> idsIn(SessionState state) {
    return Sql.inTransaction(dataSource, "list " + state + " sessions", c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT id FROM task_sessions WHERE state = ? ORDER BY id")) {
        select.setString(1, state.name());
        return Sql.firstColumn(select);
      }
    });
  }

  /** The state the session left when it last entered {@code entered}, from its published events. */
  public Optional<SessionState> stateBeforeLast(String sessionId, SessionState entered) {
    return Sql.inTransaction(dataSource, "read the events of session " + sessionId, c -> {
      try (PreparedStatement select = c.prepareStatement(
          "SELECT from_state FROM session_events WHERE session_id = ? AND to_state = ? ORDER BY id DESC LIMIT 1")) {
        select.setString(1, sessionId);
        select.setString(2, entered.name());
        try (ResultSet rs = select.executeQuery()) {
          return rs.next() ? Optional.of(SessionState.parse(rs.getString(1))) : Optional.empty();
        }
      }
    });
  }

  /** Rejects transitions no caller may ask for, before anything is read or written. */
  static void validateTransition(Collection<SessionState> expected, SessionState target) {
    if (expected.isEmpty()) {
      throw new IllegalArgumentException("a guarded transition needs at least one expected state");
    }
    if (expected.contains(target)) {
      throw new IllegalArgumentException("a transition to " + target + " cannot expect " + target);
    }
    if (expected.contains(SessionState.COMPLETED)) {
      throw new IllegalArgumentException("a COMPLETED session never changes state");
    }
    Set<SessionState> terminal = EnumSet.copyOf(expected);
    terminal.retainAll(SessionState.TERMINAL);
    if (!terminal.isEmpty() && target != SessionState.STARTING) {
      throw new IllegalArgumentException(
          "a " + terminal + " session only leaves its state through a resume to STARTING, not " + target);
    }
  }

  private record SessionRow(String taskId, SessionState state) {}

  private static SessionRow lockRow(Connection c, String sessionId) throws SQLException {
    try (PreparedStatement select =
        c.prepareStatement("SELECT task_id, state FROM task_sessions WHERE id = ? FOR UPDATE")) {
      select.setString(1, sessionId);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new UnknownSessionException(sessionId);
        }
        return new SessionRow(rs.getString(1), SessionState.parse(rs.getString(2)));
      }
    }
  }

  static boolean holdsFence(Connection c, String sessionId, Fence fence) throws SQLException {
    if (fence.isNone()) {
      return true;
    }
    try (PreparedStatement select =
        c.prepareStatement("SELECT 1 FROM resume_locks WHERE session_id = ? AND fencing_token = ?")) {
      select.setString(1, sessionId);
      select.setLong(2, fence.token());
      try (ResultSet rs = select.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static void publish(
      Connection c,
      String sessionId,
      String taskId,
      SessionState from,
      SessionState to,
      String reason,
      String errorMessage)
      throws SQLException {
    try (PreparedStatement insert =
        c.prepareStatement(
            "WITH e AS (INSERT INTO session_events (session_id, task_id, from_state, to_state, reason, error_message)"
                + " VALUES (?, ?, ?, ?, ?, ?) RETURNING id, session_id, task_id, from_state, to_state, reason, at)"
                + " SELECT pg_notify(?, json_build_object('id', e.id, 'schema', current_schema(),"
                + " 'sessionId', e.session_id, 'taskId', e.task_id, 'from', e.from_state, 'to', e.to_state,"
                + " 'reason', e.reason, 'at', e.at)::text) FROM e")) {
      insert.setString(1, sessionId);
      insert.setString(2, taskId);
      insert.setString(3, from.name());
      insert.setString(4, to.name());
      insert.setString(5, reason == null ? "" : reason);
      insert.setString(6, errorMessage == null ? "" : errorMessage);
      insert.setString(7, EVENTS_CHANNEL);
      insert.executeQuery().close();
    }
  }

  private Optional<SessionRecord> read(Connection c, String sessionId) throws SQLException {
    try (PreparedStatement select = c.prepareStatement(SELECT_SESSION)) {
      select.setString(1, sessionId);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new SessionRecord(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                SessionState.parse(rs.getString(5)),
                rs.getString(6),
                (ObjectNode) json.readTree(rs.getString(7)),
                rs.getTimestamp(8).toInstant(),
                rs.getString(9)));
      } catch (JsonProcessingException e) {
        throw new SQLException("metadata of session " + sessionId + " is not JSON", e);
      }
    }
  }

  private String toJson(JsonNode value) {
    try {
      return json.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("metadata value is not serialisable: " + e.getMessage(), e);
    }
  }

  static Array stateArray(Connection c, Collection<SessionState> states) throws SQLException {
    return c.createArrayOf("text", states.stream().map(Enum::name).toArray());
  }
}
