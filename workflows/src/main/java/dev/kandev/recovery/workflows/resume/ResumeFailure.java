package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.SessionState;
import java.util.List;

/**
 * The details of a failed resume, attached to the workflow's {@code ApplicationFailure} (type =
 * {@code failureType}) so any starter can show the user what failed and what to do next.
 *
 * @param step the step that failed
 * @param failureType stable name of the failure class, e.g. {@code AGENT_EXITED_BEFORE_INITIALIZE}
 * @param sessionState the session's state after recovery handling
 * @param recoveryActions what the user can do next: {@code RESUME}, {@code START_FRESH}
 */
public record ResumeFailure(
    String sessionId,
    ResumeStep step,
    String failureType,
    String message,
    SessionState sessionState,
    List<ResumeMode> recoveryActions) {}
