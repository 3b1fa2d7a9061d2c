package dev.kandev.recovery.workflows.resume;

import java.util.Optional;

/**
 * Input of {@code ResumeSessionWorkflow}. JSON: {@code {"sessionId":"s-1","mode":"RESUME",
 * "reason":"user","requestedBy":"user:alice","hostWait":"CONFIGURED"}}.
 *
 * @param reason why the resume happens, for the operator and the session's events: {@code user},
 *     {@code restart_recovery}, ...; it changes nothing the resume does
 * @param requestedBy who asked, for the operator (a user id, {@code kandev-api}, {@code worker})
 * @param hostWait how long the launch waits for a worker of the session's host; {@code null}: {@link
 *     RequestedHostWait#CONFIGURED}
 */
public record ResumeRequest(String sessionId, ResumeMode mode, String reason, String requestedBy, RequestedHostWait hostWait) {
  /** The reason of the resumes a worker's restart recovery starts for the sessions it lost. */
  public static final String RESTART_RECOVERY = "restart_recovery";

  public ResumeRequest {
    mode = mode == null ? ResumeMode.RESUME : mode;
    reason = reason == null || reason.isBlank() ? "user" : reason;
    requestedBy = requestedBy == null ? "" : requestedBy;
    hostWait = hostWait == null ? RequestedHostWait.CONFIGURED : hostWait;
  }

  /** A request whose launch waits the configured host wait. */
  public ResumeRequest(String sessionId, ResumeMode mode, String reason, String requestedBy) {
    this(sessionId, mode, reason, requestedBy, RequestedHostWait.CONFIGURED);
  }

  /** The resume restart recovery starts for a session whose agent went with a gone worker of this host. */
  public static ResumeRequest restartRecovery(String sessionId, String requestedBy) {
    return new ResumeRequest(sessionId, ResumeMode.RESUME, RESTART_RECOVERY, requestedBy, RequestedHostWait.RESTART_RECOVERY);
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
