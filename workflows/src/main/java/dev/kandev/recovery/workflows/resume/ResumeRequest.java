package dev.kandev.recovery.workflows.resume;

/**
 * Input of {@code ResumeSessionWorkflow}. JSON: {@code {"sessionId":"s-1","mode":"RESUME",
 * "reason":"user","requestedBy":"user:alice"}}.
 *
 * @param reason why the resume happens: {@code user}, {@code restart_recovery}, ...
 * @param requestedBy who asked, for the operator (a user id, {@code kandev-api}, {@code worker})
 */
public record ResumeRequest(String sessionId, ResumeMode mode, String reason, String requestedBy) {
  public ResumeRequest {
    mode = mode == null ? ResumeMode.RESUME : mode;
    reason = reason == null || reason.isBlank() ? "user" : reason;
    requestedBy = requestedBy == null ? "" : requestedBy;
  }

  public static String workflowId(String sessionId) {
    return "resume-session-" + sessionId;
  }
}
