package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.workflows.model.AgentFailureClass;
import java.util.EnumSet;
import java.util.Set;

/**
 * A launch that failed before the agent served the session, with its stable class and what is
 * known about it. The message states all of it but never any environment value. No launch
 * failure touches the stored resume token.
 */
public final class AgentLaunchException extends RuntimeException {
  private static final Set<AgentFailureClass> RETRYABLE =
      EnumSet.of(
          AgentFailureClass.AGENT_EXITED_BEFORE_INITIALIZE,
          AgentFailureClass.AGENT_INITIALIZE_FAILED,
          AgentFailureClass.AGENT_TRANSPORT_CLOSED);

  private final AgentFailureClass failureClass;
  private final Integer exitCode;
  private final String stderrTail;
  private final String acpError;

  public AgentLaunchException(
      AgentFailureClass failureClass, String detail, Integer exitCode, String stderrTail, String acpError, Throwable cause) {
    super(failureClass.type() + ": " + description(detail, exitCode, stderrTail, acpError), cause);
    this.failureClass = failureClass;
    this.exitCode = exitCode;
    this.stderrTail = stderrTail == null ? "" : stderrTail;
    this.acpError = acpError;
  }

  private static String description(String detail, Integer exitCode, String stderrTail, String acpError) {
    StringBuilder m = new StringBuilder(detail);
    m.append("; exit code ").append(exitCode == null ? "none (process still running or never started)" : exitCode);
    if (acpError != null) {
      m.append("; ACP error ").append(acpError);
    }
    if (stderrTail != null && !stderrTail.isBlank()) {
      m.append("; stderr tail:\n").append(stderrTail.strip());
    }
    return m.toString();
  }

  /**
   * The message without its leading failure class: for an {@code ApplicationFailure} whose type is
   * that class already (Temporal and the Web UI show the type before the message).
   */
  public String description() {
    return getMessage().substring(failureClass.type().length() + 2);
  }

  /** Whether launching again can help; false for failures of configuration or of the agent's answer. */
  public static boolean isRetryable(AgentFailureClass failureClass) {
    return RETRYABLE.contains(failureClass);
  }

  public boolean retryable() {
    return isRetryable(failureClass);
  }

  public AgentFailureClass failureClass() {
    return failureClass;
  }

  /** The child's exit code, or {@code null} if it never started or was still running (and was killed). */
  public Integer exitCode() {
    return exitCode;
  }

  /** The last few KiB of the child's stderr; empty if none. */
  public String stderrTail() {
    return stderrTail;
  }

  /** The agent's JSON-RPC error ({@code <code> <message>}) if it sent one. */
  public String acpError() {
    return acpError;
  }
}
