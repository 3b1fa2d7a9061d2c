package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.workflows.model.SessionState;
import java.time.Instant;
import java.util.Optional;

/**
 * One row of {@code task_sessions}.
 *
 * @param executorHost the host the session's agent runs on; empty until the first launch binds it
 */
public record SessionRecord(
    String id,
    String taskId,
    String agentId,
    String workspacePath,
    SessionState state,
    String errorMessage,
    ObjectNode metadata,
    Instant updatedAt,
    String executorHost) {

  /** A top-level metadata entry, e.g. {@code git_credential_snapshot}. */
  public Optional<JsonNode> metadataEntry(String key) {
    return Optional.ofNullable(metadata.get(key));
  }
}
