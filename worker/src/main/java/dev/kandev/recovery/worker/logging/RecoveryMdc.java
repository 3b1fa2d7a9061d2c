package dev.kandev.recovery.worker.logging;

import java.util.Optional;

/**
 * The MDC keys of our log lines. The SDK puts {@code WorkflowId}, {@code RunId} and {@code
 * WorkflowType} in the MDC of workflow threads, and those plus {@code ActivityType}, {@code
 * ActivityId} and {@code Attempt} in the MDC of activity threads; {@link RecoveryMdcInterceptor}
 * adds the Kandev session (or, for a runtime update, the agent) the workflow is about.
 */
public final class RecoveryMdc {
  public static final String WORKFLOW_ID = "WorkflowId";
  public static final String RUN_ID = "RunId";
  public static final String ACTIVITY_TYPE = "ActivityType";
  public static final String SESSION_ID = "SessionId";
  public static final String AGENT_ID = "AgentId";

  private static final String RESUME_PREFIX = "resume-session-";
  private static final String RUNTIME_UPDATE_PREFIX = "runtime-update-";

  private RecoveryMdc() {}

  /** The MDC entry a workflow id names: its session ({@code resume-session-<id>}) or agent ({@code runtime-update-<id>}). */
  public static Optional<String[]> subjectOf(String workflowId) {
    if (workflowId == null) {
      return Optional.empty();
    }
    if (workflowId.startsWith(RESUME_PREFIX) && workflowId.length() > RESUME_PREFIX.length()) {
      return Optional.of(new String[] {SESSION_ID, workflowId.substring(RESUME_PREFIX.length())});
    }
    if (workflowId.startsWith(RUNTIME_UPDATE_PREFIX) && workflowId.length() > RUNTIME_UPDATE_PREFIX.length()) {
      return Optional.of(new String[] {AGENT_ID, workflowId.substring(RUNTIME_UPDATE_PREFIX.length())});
    }
    return Optional.empty();
  }
}
