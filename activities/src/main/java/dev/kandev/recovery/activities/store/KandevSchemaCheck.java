package dev.kandev.recovery.activities.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The start-up check of the kandev layout: every column of Kandev's tables that we read or write is
 * there, with a type we handle. It only reads the catalog; a mismatch is reported, never repaired.
 */
public final class KandevSchemaCheck {
  private static final String TEXT = "text";
  private static final String TIMESTAMP = "timestamp without time zone";
  private static final String INTEGER = "integer";
  private static final String BIGINT = "bigint";

  /** Table, column, the type we handle. */
  private record Column(String table, String column, String type) {}

  static final List<Column> USED = List.of(
      new Column("tasks", "id", TEXT),
      new Column("tasks", "workspace_id", TEXT),
      new Column("tasks", "state", TEXT),
      new Column("tasks", "archived_at", TIMESTAMP),
      new Column("tasks", "updated_at", TIMESTAMP),
      new Column("task_sessions", "id", TEXT),
      new Column("task_sessions", "task_id", TEXT),
      new Column("task_sessions", "agent_profile_id", TEXT),
      new Column("task_sessions", "executor_id", TEXT),
      new Column("task_sessions", "workspace_path", TEXT),
      new Column("task_sessions", "state", TEXT),
      new Column("task_sessions", "error_message", TEXT),
      new Column("task_sessions", "metadata", TEXT),
      new Column("task_sessions", "completed_at", TIMESTAMP),
      new Column("task_sessions", "updated_at", TIMESTAMP),
      new Column("executors_running", "id", TEXT),
      new Column("executors_running", "session_id", TEXT),
      new Column("executors_running", "task_id", TEXT),
      new Column("executors_running", "executor_id", TEXT),
      new Column("executors_running", "status", TEXT),
      new Column("executors_running", "resumable", INTEGER),
      new Column("executors_running", "resume_token", TEXT),
      new Column("executors_running", "created_at", TIMESTAMP),
      new Column("executors_running", "updated_at", TIMESTAMP),
      // Our agent executions, shown in Kandev's row (store/kandev/KandevExecutorsRunningStore).
      new Column("executors_running", "execution_profile_id", TEXT),
      new Column("executors_running", "runtime", TEXT),
      new Column("executors_running", "agent_execution_id", TEXT),
      new Column("executors_running", "container_id", TEXT),
      new Column("executors_running", "agentctl_url", TEXT),
      new Column("executors_running", "agentctl_port", INTEGER),
      new Column("executors_running", "pid", INTEGER),
      new Column("executors_running", "local_pid", INTEGER),
      new Column("executors_running", "error_message", TEXT),
      new Column("executors_running", "metadata", TEXT),
      new Column("executors_running", "last_seen_at", TIMESTAMP),
      new Column("task_session_turns", "id", TEXT),
      new Column("task_session_turns", "task_session_id", TEXT),
      new Column("task_session_turns", "task_id", TEXT),
      new Column("task_session_turns", "started_at", TIMESTAMP),
      new Column("task_session_turns", "completed_at", TIMESTAMP),
      new Column("task_session_turns", "metadata", TEXT),
      new Column("task_session_turns", "created_at", TIMESTAMP),
      new Column("task_session_turns", "updated_at", TIMESTAMP),
      new Column("task_session_messages", "id", TEXT),
      new Column("task_session_messages", "task_session_id", TEXT),
      new Column("task_session_messages", "task_id", TEXT),
      new Column("task_session_messages", "turn_id", TEXT),
      new Column("task_session_messages", "author_type", TEXT),
      new Column("task_session_messages", "content", TEXT),
      new Column("task_session_messages", "type", TEXT),
      new Column("task_session_messages", "metadata", TEXT),
      new Column("task_session_messages", "created_at", TIMESTAMP),
      new Column("task_session_messages", "updated_at", TIMESTAMP),
      new Column("task_session_messages", "prompt_seq", INTEGER),
      new Column("task_session_prompt_seq", "task_session_id", TEXT),
      new Column("task_session_prompt_seq", "last_seq", INTEGER),
      // Read by the credential broker.
      new Column("task_repositories", "task_id", TEXT),
      new Column("task_repositories", "repository_id", TEXT),
      new Column("task_repositories", "position", INTEGER),
      new Column("repositories", "id", TEXT),
      new Column("repositories", "workspace_id", TEXT),
      new Column("repositories", "provider", TEXT),
      new Column("repositories", "provider_host", TEXT),
      new Column("repositories", "provider_owner", TEXT),
      new Column("repositories", "provider_name", TEXT),
      new Column("repositories", "deleted_at", TIMESTAMP),
      // Read for Kandev's bus events (store/kandev/KandevEventRows) in the transition's transaction:
      // one missing would fail every transition once KANDEV_NATS_URL is set, so it stops the start instead.
      new Column("task_sessions", "agent_profile_snapshot", TEXT),
      new Column("task_sessions", "execution_profile_id", TEXT),
      new Column("task_sessions", "route_generation", INTEGER),
      new Column("task_sessions", "route_state", TEXT),
      new Column("task_sessions", "route_reason", TEXT),
      new Column("task_sessions", "downstream_acp_session_id", TEXT),
      new Column("task_sessions", "is_primary", INTEGER),
      new Column("task_sessions", "is_passthrough", INTEGER),
      new Column("task_sessions", "review_status", TEXT),
      new Column("task_sessions", "name", TEXT),
      new Column("task_sessions", "task_environment_id", TEXT),
      new Column("tasks", "workflow_id", TEXT),
      new Column("tasks", "workflow_step_id", TEXT),
      new Column("tasks", "title", TEXT),
      new Column("tasks", "description", TEXT),
      new Column("tasks", "priority", TEXT),
      new Column("tasks", "position", INTEGER),
      new Column("tasks", "wip_admitted", INTEGER),
      new Column("tasks", "is_ephemeral", INTEGER),
      new Column("tasks", "autopilot_enabled", INTEGER),
      new Column("tasks", "origin", TEXT),
      new Column("tasks", "metadata", TEXT),
      new Column("tasks", "parent_id", TEXT),
      new Column("tasks", "external_id", TEXT),
      new Column("tasks", "queued_for_step_id", TEXT),
      new Column("tasks", "queued_at", TIMESTAMP),
      new Column("tasks", "created_at", TIMESTAMP),
      // Read for a replay's turn and message events (KandevEventRows.turn, .message).
      new Column("task_session_turns", "execution_profile_id", TEXT),
      new Column("task_session_turns", "route_generation", BIGINT),
      new Column("task_session_messages", "author_id", TEXT),
      new Column("task_session_messages", "requests_input", INTEGER));

  private KandevSchemaCheck() {}

  /** Throws {@link KandevSchemaMismatchException} naming the first column that is missing or of another type. */
  public static void check(DataSource dataSource, StoreLayout layout) {
    String schema = layout.kandevSchema();
    Map<String, String> types = new HashMap<>();
    try (Connection c = dataSource.getConnection();
        PreparedStatement read = c.prepareStatement("SELECT table_name, column_name, data_type"
            + " FROM information_schema.columns WHERE table_schema = ?")) {
      read.setString(1, schema);
      try (ResultSet rs = read.executeQuery()) {
        while (rs.next()) {
          types.put(rs.getString(1) + "." + rs.getString(2), rs.getString(3));
        }
      }
    } catch (SQLException e) {
      throw new StoreException("could not read the columns of Kandev's tables in schema " + schema, e);
    }
    for (Column used : USED) {
      String found = types.get(used.table() + "." + used.column());
      if (!used.type().equals(found)) {
        throw new KandevSchemaMismatchException("Kandev's table " + schema + "." + used.table()
            + (found == null ? " has no column " + used.column() : " has column " + used.column() + " of type " + found)
            + ", expected " + used.column() + " " + used.type()
            + ": KANDEV_KANDEV_SCHEMA must name the schema of Kandev's tables, as a supported Kandev creates them"
            + " (docs/kandev.md); nothing was changed");
      }
    }
  }
}
