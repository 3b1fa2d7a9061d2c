package dev.kandev.recovery.activities.store;

/**
 * The two persisted copies of the provider-native conversation id: {@code
 * executors_running.resume_token} (operational) and {@code task_sessions.metadata.acp.session_id}
 * (durable mirror). Empty strings mean "none".
 */
public record SessionIdentity(String resumeToken, String acpSessionId) {
  public boolean hasToken() {
    return !resumeToken.isEmpty();
  }
}
