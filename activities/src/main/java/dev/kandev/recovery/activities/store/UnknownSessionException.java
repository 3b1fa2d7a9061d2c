package dev.kandev.recovery.activities.store;

/** The session id names no row in {@code task_sessions}. */
public class UnknownSessionException extends IllegalArgumentException {
  private final String sessionId;

  public UnknownSessionException(String sessionId) {
    super("unknown session '" + sessionId + "'");
    this.sessionId = sessionId;
  }

  public String sessionId() {
    return sessionId;
  }
}
