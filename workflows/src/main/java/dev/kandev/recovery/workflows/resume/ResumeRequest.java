package dev.kandev.recovery.workflows.resume;

import java.util.Optional;

/**
 * Input of {@code ResumeSessionWorkflow}. JSON: {@code {"sessionId":"s-1","mode":"RESUME",
 * "reason":"user","requestedBy":"user:alice"}}.
 *
 * @param reason why the resume happens: {@code user}, {@code restart_recovery}, ...
 * @param requestedBy who asked, for the operator (a user id, {@code kandev-api}, {@code worker})
 */
public record ResumeRequest(String sessionId, ResumeMode mode, String reason, String requestedBy) {
  /** The reason of the resumes a worker's restart recovery starts for the sessions it lost. */
  public static final String RESTART_RECOVERY = "restart_recovery";

  public ResumeRequest {
    mode = mode == null ? ResumeMode.RESUME : mode;
    reason = reason == null || reason.isBlank() ? "user" : reason;
    requestedBy = requestedBy == null ? "" : requestedBy;
  }

  /**
   * What the user must hear before a Start fresh: the stored conversation is cleared before the
   * new one is created, so it is gone even if creating the new one fails. Empty for a Resume.
   */
  public Optional<String> warning() {
    return mode == ResumeMode.START_FRESH
        ? Optional.of("Start fresh: the stored conversation of session " + sessionId + " will no longer be resumable"
            + " (it is cleared before the new one is created, even if that fails)")
        : Optional.empty();
  }

  public static String workflowId(String sessionId) {
    return "resume-session-" + sessionId;
  }
}
