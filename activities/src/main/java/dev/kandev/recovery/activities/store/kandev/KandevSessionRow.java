package dev.kandev.recovery.activities.store.kandev;

import java.time.LocalDateTime;

/**
 * The columns of Kandev's {@code task_sessions} row that its {@code task_session.state_changed}
 * event carries, as stored (JSON as text, integer booleans, naive-UTC time; nullable text as null).
 */
public record KandevSessionRow(
    String id,
    String taskId,
    String state,
    String errorMessage,
    String agentProfileId,
    String agentProfileSnapshot,
    String executionProfileId,
    long routeGeneration,
    String routeState,
    String routeReason,
    String downstreamAcpSessionId,
    int isPrimary,
    int isPassthrough,
    String reviewStatus,
    String name,
    String metadata,
    String taskEnvironmentId,
    LocalDateTime updatedAt) {}
