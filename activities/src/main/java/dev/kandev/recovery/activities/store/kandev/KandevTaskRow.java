package dev.kandev.recovery.activities.store.kandev;

import java.time.LocalDateTime;

/**
 * The columns of Kandev's {@code tasks} row that its task events carry, as stored, with what its
 * task events add from the task's sessions: how many there are and the primary one (if any).
 */
public record KandevTaskRow(
    String id,
    String workspaceId,
    String workflowId,
    String workflowStepId,
    String title,
    String description,
    String state,
    String priority,
    int position,
    int wipAdmitted,
    int isEphemeral,
    int autopilotEnabled,
    String origin,
    String metadata,
    String parentId,
    String externalId,
    String queuedForStepId,
    LocalDateTime queuedAt,
    LocalDateTime archivedAt,
    LocalDateTime createdAt,
    LocalDateTime updatedAt,
    int sessionCount,
    PrimarySession primarySession) {

  /** The task's primary session ({@code is_primary = 1}); null in {@link #primarySession} when it has none. */
  public record PrimarySession(String id, String state, String reviewStatus, String executorId) {}
}
