package dev.kandev.recovery.activities.store.kandev;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.events.KandevTime;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code data} of Kandev's events, built from its rows the way its Go publishers build them
 * ({@code publishTaskSessionStateChanged}, {@code publishTaskEventNow}; reference: kandev-postgres.md
 * §9.2). What only Kandev's process knows is sent as "nothing": no foreground activity (an explicit
 * null, so a stale "generating" is cleared), no subagents, no steering.
 */
public final class KandevEventPayloads {
  public static final String SESSION_STATE_CHANGED = "task_session.state_changed";
  public static final String TASK_STATE_CHANGED = "task.state_changed";
  public static final String TASK_UPDATED = "task.updated";
  public static final String TURN_STARTED = "turn.started";
  public static final String TURN_COMPLETED = "turn.completed";
  public static final String MESSAGE_ADDED = "message.added";

  private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {};
  private final ObjectMapper json;

  public KandevEventPayloads(ObjectMapper json) {
    this.json = json;
  }

  /**
   * {@code task_session.state_changed}: every key Kandev always sends, with its JSON type. The
   * dynamic-route projection ({@code route_error_*}, {@code route_catalogue_version}, {@code
   * route_retry_ordinal}, {@code route_deadline}, {@code route_pending_outcome}) is sent as Kandev
   * sends it for a session without a route decision: empty, 0, null.
   */
  public Map<String, Object> sessionStateChanged(KandevSessionRow row, String oldState) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("task_id", row.taskId());
    data.put("session_id", row.id());
    data.put("old_state", text(oldState));
    data.put("new_state", text(row.state()));
    data.put("error_message", text(row.errorMessage()));
    data.put("agent_profile_id", text(row.agentProfileId()));
    data.put("agent_profile_snapshot", object(row.agentProfileSnapshot()).orElse(null));
    data.put("execution_profile_id", text(row.executionProfileId()));
    data.put("route_generation", row.routeGeneration());
    data.put("route_state", text(row.routeState()));
    data.put("route_reason", text(row.routeReason()));
    data.put("route_error_code", "");
    data.put("route_error_class", "");
    data.put("route_catalogue_version", "");
    data.put("route_retry_ordinal", 0);
    data.put("route_deadline", null);
    data.put("route_pending_outcome", "");
    data.put("downstream_acp_session_id", text(row.downstreamAcpSessionId()));
    data.put("is_passthrough", row.isPassthrough() != 0);
    data.put("is_primary", row.isPrimary() != 0);
    data.put("foreground_activity", null);
    data.put("active_subagent_count", 0);
    data.put("supports_steering", false);
    data.put("updated_at", KandevTime.rfc3339Nano(row.updatedAt()));
    if (!text(row.reviewStatus()).isEmpty()) {
      data.put("review_status", row.reviewStatus());
    }
    data.put("name", text(row.name()));
    // '' and 'null' occur and mean an empty map; a value that is no JSON object is left out (the
    // UI keeps what it had) rather than failing the transition that publishes it.
    sessionMetadata(row.metadata()).ifPresent(metadata -> data.put("session_metadata", metadata));
    if (!text(row.taskEnvironmentId()).isEmpty()) {
      data.put("task_environment_id", row.taskEnvironmentId());
    }
    return data;
  }

  /**
   * {@code task.updated} ({@code oldState} null) or {@code task.state_changed}: the full field set,
   * since Kandev's UI rebuilds the card from the payload and an omitted title, step, position or
   * state blanks it. Keys the UI keeps when omitted and that need Kandev's process or tables we do
   * not read (foreground activity, pending actions, executor type and name, repositories, workspace
   * folders) are left out.
   */
  public Map<String, Object> task(KandevTaskRow row, String oldState) {
    Map<String, Object> data = new LinkedHashMap<>();
    Optional<Map<String, Object>> metadata = object(row.metadata());
    data.put("task_id", row.id());
    data.put("workspace_id", text(row.workspaceId()));
    data.put("workflow_id", text(row.workflowId()));
    data.put("workflow_step_id", text(row.workflowStepId()));
    data.put("title", text(row.title()));
    data.put("description", text(row.description()));
    data.put("state", text(row.state()));
    data.put("priority", text(row.priority()));
    data.put("position", row.position());
    data.put("wip_admitted", row.wipAdmitted() != 0);
    data.put("created_at", KandevTime.rfc3339Nano(row.createdAt()));
    data.put("updated_at", KandevTime.rfc3339Nano(row.updatedAt()));
    data.put("is_ephemeral", row.isEphemeral() != 0);
    data.put("autopilot", row.autopilotEnabled() != 0);
    data.put("origin", text(row.origin()));
    data.put("auto_start_failed", metadata.map(m -> m.get("auto_start_failed") != null).orElse(false));
    data.put("queued_for_step_id", text(row.queuedForStepId()));
    data.put("queued_at", time(row.queuedAt()));
    if (row.sessionCount() > 0) {
      data.put("session_count", row.sessionCount());
    }
    KandevTaskRow.PrimarySession primary = row.primarySession();
    if (primary == null) {
      data.put("primary_session_id", null);
      data.put("primary_session_state", null);
      data.put("primary_session_pending_action", null);
    } else {
      data.put("primary_session_id", primary.id());
      if (!text(primary.reviewStatus()).isEmpty()) {
        data.put("review_status", primary.reviewStatus());
      }
      data.put("primary_session_state", text(primary.state()).isEmpty() ? null : primary.state());
      if (!text(primary.executorId()).isEmpty()) {
        data.put("primary_executor_id", primary.executorId());
      }
    }
    if (!text(row.parentId()).isEmpty()) {
      data.put("parent_id", row.parentId());
    }
    if (!text(row.externalId()).isEmpty()) {
      data.put("external_id", row.externalId());
    }
    data.put("archived_at", time(row.archivedAt()));
    metadata.ifPresent(m -> data.put("metadata", m));
    if (oldState != null) {
      data.put("old_state", oldState);
      data.put("new_state", text(row.state()));
    }
    return data;
  }

  /**
   * {@code turn.started} ({@code hadOutput} null) or {@code turn.completed}, as Kandev's task service
   * builds them ({@code publishTurnEvent}): the turn's columns, its times as Go marshals a {@code
   * time.Time} (RFC 3339 with nanoseconds), {@code completed_at} null while open.
   */
  public Map<String, Object> turn(KandevEventRows.TurnRow turn, Boolean hadOutput) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("id", turn.id());
    data.put("session_id", turn.sessionId());
    data.put("task_id", text(turn.taskId()));
    data.put("execution_profile_id", text(turn.executionProfileId()));
    data.put("route_generation", turn.routeGeneration());
    data.put("started_at", time(turn.startedAt()));
    data.put("completed_at", time(turn.completedAt()));
    data.put("metadata", object(turn.metadata()).orElse(null));
    data.put("created_at", time(turn.createdAt()));
    data.put("updated_at", time(turn.updatedAt()));
    if (hadOutput != null) {
      data.put("had_output", hadOutput);
    }
    return data;
  }

  /**
   * {@code message.added}, as Kandev's {@code newMessageEvent} builds it: the message's columns,
   * {@code prompt_index} for a user prompt (its {@code prompt_seq}), {@code metadata} when it is an
   * object. Kandev's pending-action projection ({@code pending_action}) needs its process and is left
   * out, so the UI keeps its value.
   */
  public Map<String, Object> message(KandevEventRows.MessageRow message) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("message_id", message.id());
    data.put("session_id", message.sessionId());
    data.put("task_id", text(message.taskId()));
    data.put("turn_id", message.turnId());
    data.put("author_type", text(message.authorType()));
    data.put("author_id", text(message.authorId()));
    data.put("content", text(message.content()));
    data.put("type", text(message.type()).isEmpty() ? "message" : message.type());
    data.put("requests_input", message.requestsInput() != 0);
    data.put("created_at", time(message.createdAt()));
    data.put("updated_at", time(message.updatedAt()));
    if (message.promptSeq() > 0) {
      data.put("prompt_index", message.promptSeq());
    }
    object(message.metadata()).filter(m -> !m.isEmpty()).ifPresent(m -> data.put("metadata", m));
    return data;
  }

  private Optional<Map<String, Object>> sessionMetadata(String stored) {
    if (stored == null || stored.isBlank() || stored.trim().equals("null")) {
      return Optional.of(Map.of());
    }
    return object(stored);
  }

  /** A JSON object stored as text; empty for NULL, '', 'null' or anything that is not an object. */
  private Optional<Map<String, Object>> object(String stored) {
    if (stored == null || stored.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.ofNullable(json.readValue(stored, OBJECT));
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }

  private static String text(String value) {
    return value == null ? "" : value;
  }

  private static String time(LocalDateTime utc) {
    return utc == null ? null : KandevTime.rfc3339Nano(utc);
  }
}
