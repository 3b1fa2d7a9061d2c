package dev.kandev.recovery.workflows.runtime;

/**
 * Input of {@code RuntimeUpdateWorkflow}: which built-in agent to update, who asked (for the record
 * only), and on which executor host. JSON: {@code {"agentId":"opencode-acp","requestedBy":"user:alice",
 * "host":"build-1"}}.
 *
 * @param host the executor host whose runtime is updated: its workers run the npm steps. Empty (or
 *     absent): any worker's host — right only when all workers share one host
 */
public record RuntimeUpdateRequest(String agentId, String requestedBy, String host) {
  public RuntimeUpdateRequest {
    requestedBy = requestedBy == null || requestedBy.isBlank() ? "unknown" : requestedBy;
    host = host == null ? "" : host;
  }

  /** On any worker's host. */
  public RuntimeUpdateRequest(String agentId, String requestedBy) {
    this(agentId, requestedBy, "");
  }
}
