package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.SessionState;
import java.util.List;

/**
 * What a failed resume tells: the session's state after recovery, the user's recovery actions, the
 * failure's message (the whole story: the Web UI shows it first, above the details) and the Web UI's
 * ending. Pure text from what the attempt learned; the saga raises it.
 */
record FailedResume(ResumeFailure details, String message, String ending) {
  static FailedResume of(String sessionId, ResumeStep failedStep, String type, ResumeAttempt attempt) {
    boolean changedNothing = attempt.changedNothing();
    // Deleted while the resume ran: no state to report and nothing left to resume.
    boolean sessionGone = !changedNothing && FailureType.SESSION_NOT_FOUND.type().equals(type);
    SessionState state = sessionGone ? null : attempt.restoredState != null ? attempt.restoredState
        : attempt.context != null ? attempt.context.priorState() : null;
    // A Resume refused for want of a stored conversation changed nothing, and Start fresh is the way on.
    List<ResumeMode> actions = FailureType.NO_STORED_SESSION.type().equals(type) ? List.of(ResumeMode.START_FRESH)
        : changedNothing || sessionGone ? List.of()
        : attempt.hasToken() ? List.of(ResumeMode.RESUME, ResumeMode.START_FRESH) : List.of(ResumeMode.START_FRESH);
    ResumeFailure details = new ResumeFailure(sessionId, failedStep, type, attempt.errorMessage, state, actions);
    String message = attempt.errorMessage + (changedNothing ? "; nothing was changed"
        : sessionGone ? "; the session no longer exists"
        : "; session now " + state + "; recovery actions: "
            + (actions.isEmpty() ? "none" : String.join(", ", actions.stream().map(Enum::name).toList())));
    String ending = "**FAILED** at " + failedStep + " (" + type + "): "
        + (changedNothing ? "nothing was changed" : sessionGone ? "the session no longer exists" : "session now " + state);
    return new FailedResume(details, message, ending);
  }

  /** What a failure says before the saga compensates: the step, the type, a lost conversation, the cause. */
  static String errorMessage(ResumeStep failedStep, String type, ResumeAttempt attempt, String cause) {
    return "resume failed at " + failedStep + " (" + type + "): " + attempt.lostConversation() + cause;
  }

  /** The cause of a launch no worker of its host took in time. */
  static String noHostWorker(HostAgents agents) {
    return "no worker of host " + agents.host() + " took the launch within " + agents.hostWait().toSeconds()
        + " s (the host's worker is down, or busy with more launches than its cap); nothing was launched";
  }
}
