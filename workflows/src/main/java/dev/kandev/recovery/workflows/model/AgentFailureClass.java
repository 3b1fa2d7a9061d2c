package dev.kandev.recovery.workflows.model;

/**
 * Why an agent launch failed. The names are stable: they are the {@code ApplicationFailure} types
 * the launch step reports and what the user-facing failure names. None of them touches the stored
 * resume token; the user's recovery is Resume (the same token) or Start fresh.
 */
public enum AgentFailureClass {
  /** The agent process could not be started (missing binary, bad working directory, ...). */
  AGENT_PROCESS_START_FAILED,
  /** The process exited before it answered ACP {@code initialize}. */
  AGENT_EXITED_BEFORE_INITIALIZE,
  /** {@code initialize} timed out or returned an error. */
  AGENT_INITIALIZE_FAILED,
  /** The transport closed before {@code session/load} or {@code session/new} completed. */
  AGENT_TRANSPORT_CLOSED,
  /** The agent answered {@code session/load} with an error (e.g. unknown session). */
  AGENT_SESSION_LOAD_REJECTED,
  /** A stored token exists but the agent does not declare {@code loadSession}. */
  AGENT_CANNOT_LOAD_SESSIONS,
  /** {@code session/new} failed (including authentication required). */
  AGENT_SESSION_NEW_FAILED;

  /** The {@code ApplicationFailure} type name. */
  public String type() {
    return name();
  }
}
