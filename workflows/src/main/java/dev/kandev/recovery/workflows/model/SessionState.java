package dev.kandev.recovery.workflows.model;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/** Task session states as Kandev persists them in {@code task_sessions.state}. */
public enum SessionState {
  CREATED,
  STARTING,
  RUNNING,
  IDLE,
  WAITING_FOR_INPUT,
  COMPLETED,
  FAILED,
  CANCELLED;

  /** Stop-terminal: the credential broker rejects these and they never change but for a resume. */
  public static final Set<SessionState> TERMINAL = EnumSet.of(COMPLETED, FAILED, CANCELLED);

  /** Terminal states a resume may leave, and only towards {@link #STARTING}. */
  public static final Set<SessionState> RESUMABLE_TERMINAL = EnumSet.of(FAILED, CANCELLED);

  public boolean isTerminal() {
    return TERMINAL.contains(this);
  }

  /**
   * Whether a session in this state may be resumed at all. A COMPLETED session never is (Kandev:
   * "create a new session instead"); whether a live agent already serves the session is decided by
   * the resume itself, not by the state alone.
   */
  public boolean isResumable() {
    return this != COMPLETED;
  }

  /** Parses a stored or requested state name, with an error that lists the valid names. */
  public static SessionState parse(String name) {
    if (name != null) {
      for (SessionState state : values()) {
        if (state.name().equals(name)) {
          return state;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown session state '" + name + "'; expected one of "
            + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", ")));
  }
}
