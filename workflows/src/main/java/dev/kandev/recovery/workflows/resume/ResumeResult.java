package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.SessionState;

/**
 * Result of a successful {@code ResumeSessionWorkflow}.
 *
 * @param providerSessionId the provider-native session id now in use
 * @param loaded true if it was loaded with {@code session/load}, false if newly created
 */
public record ResumeResult(
    String sessionId,
    String taskId,
    ResumeOutcome outcome,
    SessionState finalState,
    String providerSessionId,
    boolean loaded) {}
