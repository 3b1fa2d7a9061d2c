package dev.kandev.recovery.workflows.model;

import dev.kandev.recovery.workflows.FailureType;

/**
 * Why an agent launch failed: the launch's own part of the {@link FailureType} catalogue, each
 * class named as its type (what they mean is said there). None of them touches the stored resume
 * token; the user's recovery is Resume (the same token) or Start fresh.
 */
public enum AgentFailureClass {
  AGENT_PROCESS_START_FAILED(FailureType.AGENT_PROCESS_START_FAILED),
  AGENT_EXITED_BEFORE_INITIALIZE(FailureType.AGENT_EXITED_BEFORE_INITIALIZE),
  AGENT_INITIALIZE_FAILED(FailureType.AGENT_INITIALIZE_FAILED),
  AGENT_TRANSPORT_CLOSED(FailureType.AGENT_TRANSPORT_CLOSED),
  AGENT_SESSION_LOAD_REJECTED(FailureType.AGENT_SESSION_LOAD_REJECTED),
  AGENT_CANNOT_LOAD_SESSIONS(FailureType.AGENT_CANNOT_LOAD_SESSIONS),
  AGENT_SESSION_NEW_FAILED(FailureType.AGENT_SESSION_NEW_FAILED);

  private final FailureType failureType;

  AgentFailureClass(FailureType failureType) {
    this.failureType = failureType;
  }

  public FailureType failureType() {
    return failureType;
  }

  /** The {@code ApplicationFailure} type name. */
  public String type() {
    return failureType.type();
  }
}
