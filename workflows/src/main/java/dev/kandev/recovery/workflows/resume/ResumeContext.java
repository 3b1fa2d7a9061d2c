package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.SessionState;

/**
 * What the resume reads while the session still shows its prior state, before any write.
 *
 * @param resumeToken the stored provider-native session id, empty if there is none (not a secret)
 * @param previousSnapshotJson the {@code git_credential_snapshot} before this attempt, as stored
 *     (JSON, restored byte for byte by a compensation), or null if there was none
 * @param executorHost the host whose worker launches the session's agent (its workspace lives there):
 *     the one stored on the session, or for a session not bound yet the host of the worker that read
 *     the context (the launch binds it); null in histories recorded before hosts had queues
 */
public record ResumeContext(
    String sessionId,
    String taskId,
    String agentId,
    SessionState priorState,
    String resumeToken,
    String previousSnapshotJson,
    String executorHost) {}
