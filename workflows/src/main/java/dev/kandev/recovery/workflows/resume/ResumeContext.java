package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import dev.kandev.recovery.workflows.model.SessionState;

/**
 * What the resume reads while the session still shows its prior state, before any write.
 *
 * @param resumeToken the stored provider-native session id, empty if there is none (not a secret)
 * @param previousSnapshot the {@code git_credential_snapshot} before this attempt, which a
 *     compensation puts back; null if there was none (or the stored value is not a snapshot)
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
    GitCredentialSnapshot previousSnapshot,
    String executorHost) {}
