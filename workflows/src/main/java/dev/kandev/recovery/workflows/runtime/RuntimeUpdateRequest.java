package dev.kandev.recovery.workflows.runtime;

/**
 * Input of {@code RuntimeUpdateWorkflow}: which built-in agent to update, and who asked (for the
 * record only). JSON: {@code {"agentId":"opencode-acp","requestedBy":"user:alice"}}.
 */
public record RuntimeUpdateRequest(String agentId, String requestedBy) {
  public RuntimeUpdateRequest {
    requestedBy = requestedBy == null || requestedBy.isBlank() ? "unknown" : requestedBy;
  }
}
