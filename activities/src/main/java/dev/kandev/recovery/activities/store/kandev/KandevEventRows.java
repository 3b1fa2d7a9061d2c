package dev.kandev.recovery.activities.store.kandev;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Reads the rows Kandev's events are built from, in Kandev's schema, on the caller's transaction
 * (so an event shows the row as the transaction that changed it sees it). Only reads: columns of
 * kandev-postgres.md §3.1 and §3.2.
 */
public final class KandevEventRows {
  private final String sessions;
  private final String tasks;
  private final String turns;
  private final String messages;

  /** A row of {@code task_session_turns}. */
  public record TurnRow(String id, String sessionId, String taskId, String executionProfileId, long routeGeneration,
      LocalDateTime startedAt, LocalDateTime completedAt, String metadata, LocalDateTime createdAt, LocalDateTime updatedAt) {}

  /** A row of {@code task_session_messages}. */
  public record MessageRow(String id, String sessionId, String taskId, String turnId, String authorType, String authorId,
      String content, String type, int requestsInput, String metadata, int promptSeq, LocalDateTime createdAt,
      LocalDateTime updatedAt) {}

  /** Kandev's tables in {@code kandevSchema}. */
  public KandevEventRows(String kandevSchema) {
    String schema = "\"" + kandevSchema.replace("\"", "\"\"") + "\"";
    this.sessions = schema + ".task_sessions";
    this.tasks = schema + ".tasks";
    this.turns = schema + ".task_session_turns";
    this.messages = schema + ".task_session_messages";
  }

  public Optional<KandevSessionRow> session(Handle h, String sessionId) {
    return h.createQuery("SELECT id, task_id, state, error_message, agent_profile_id, agent_profile_snapshot,"
            + " execution_profile_id, route_generation, route_state, route_reason, downstream_acp_session_id,"
            + " is_primary, is_passthrough, review_status, name, metadata, task_environment_id, updated_at"
            + " FROM " + sessions + " WHERE id = :id")
        .bind("id", sessionId)
        .map((rs, ctx) -> new KandevSessionRow(
            rs.getString("id"), rs.getString("task_id"), rs.getString("state"), rs.getString("error_message"),
            rs.getString("agent_profile_id"), rs.getString("agent_profile_snapshot"),
            rs.getString("execution_profile_id"), rs.getLong("route_generation"), rs.getString("route_state"),
            rs.getString("route_reason"), rs.getString("downstream_acp_session_id"), rs.getInt("is_primary"),
            rs.getInt("is_passthrough"), rs.getString("review_status"), rs.getString("name"),
            rs.getString("metadata"), rs.getString("task_environment_id"), time(rs, "updated_at")))
        .findOne();
  }

  public Optional<KandevTaskRow> task(Handle h, String taskId) {
    Optional<KandevTaskRow.PrimarySession> primary = h.createQuery("SELECT id, state, review_status, executor_id"
            + " FROM " + sessions + " WHERE task_id = :id AND is_primary = 1 LIMIT 1")
        .bind("id", taskId)
        .map((rs, ctx) -> new KandevTaskRow.PrimarySession(
            rs.getString("id"), rs.getString("state"), rs.getString("review_status"), rs.getString("executor_id")))
        .findOne();
    return h.createQuery("SELECT t.id, t.workspace_id, t.workflow_id, t.workflow_step_id, t.title, t.description,"
            + " t.state, t.priority, t.position, t.wip_admitted, t.is_ephemeral, t.autopilot_enabled, t.origin,"
            + " t.metadata, t.parent_id, t.external_id, t.queued_for_step_id, t.queued_at, t.archived_at,"
            + " t.created_at, t.updated_at, (SELECT count(*) FROM " + sessions + " s WHERE s.task_id = t.id) AS sessions"
            + " FROM " + tasks + " t WHERE t.id = :id")
        .bind("id", taskId)
        .map((rs, ctx) -> new KandevTaskRow(
            rs.getString("id"), rs.getString("workspace_id"), rs.getString("workflow_id"),
            rs.getString("workflow_step_id"), rs.getString("title"), rs.getString("description"),
            rs.getString("state"), rs.getString("priority"), rs.getInt("position"), rs.getInt("wip_admitted"),
            rs.getInt("is_ephemeral"), rs.getInt("autopilot_enabled"), rs.getString("origin"),
            rs.getString("metadata"), rs.getString("parent_id"), rs.getString("external_id"),
            rs.getString("queued_for_step_id"), time(rs, "queued_at"), time(rs, "archived_at"),
            time(rs, "created_at"), time(rs, "updated_at"), rs.getInt("sessions"), primary.orElse(null)))
        .findOne();
  }

  public Optional<TurnRow> turn(Handle h, String turnId) {
    return h.createQuery("SELECT id, task_session_id, task_id, execution_profile_id, route_generation, started_at,"
            + " completed_at, metadata, created_at, updated_at FROM " + turns + " WHERE id = :id")
        .bind("id", turnId)
        .map((rs, ctx) -> new TurnRow(rs.getString("id"), rs.getString("task_session_id"), rs.getString("task_id"),
            rs.getString("execution_profile_id"), rs.getLong("route_generation"), time(rs, "started_at"),
            time(rs, "completed_at"), rs.getString("metadata"), time(rs, "created_at"), time(rs, "updated_at")))
        .findOne();
  }

  public Optional<MessageRow> message(Handle h, String messageId) {
    return h.createQuery("SELECT id, task_session_id, task_id, turn_id, author_type, author_id, content, type,"
            + " requests_input, metadata, COALESCE(prompt_seq, 0) AS prompt_seq, created_at, updated_at"
            + " FROM " + messages + " WHERE id = :id")
        .bind("id", messageId)
        .map((rs, ctx) -> new MessageRow(rs.getString("id"), rs.getString("task_session_id"), rs.getString("task_id"),
            rs.getString("turn_id"), rs.getString("author_type"), rs.getString("author_id"), rs.getString("content"),
            rs.getString("type"), rs.getInt("requests_input"), rs.getString("metadata"), rs.getInt("prompt_seq"),
            time(rs, "created_at"), time(rs, "updated_at")))
        .findOne();
  }

  private static LocalDateTime time(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, LocalDateTime.class);
  }
}
