package dev.kandev.recovery.activities.agent;

/**
 * A prompt turn that did not finish: the agent process died, the transport closed, the turn timed
 * out and the agent did not acknowledge the cancel, or the agent answered the prompt with an error.
 */
public final class AgentTurnException extends RuntimeException {
  private final Integer exitCode;
  private final String stderrTail;

  public AgentTurnException(String message, Integer exitCode, String stderrTail, Throwable cause) {
    super(message + (exitCode == null ? "" : "; exit code " + exitCode)
        + (stderrTail == null || stderrTail.isBlank() ? "" : "; stderr tail:\n" + stderrTail.strip()), cause);
    this.exitCode = exitCode;
    this.stderrTail = stderrTail == null ? "" : stderrTail;
  }

  public Integer exitCode() {
    return exitCode;
  }

  public String stderrTail() {
    return stderrTail;
  }
}
