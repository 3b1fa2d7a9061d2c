package dev.kandev.recovery.activities.agent;

/** The ACP request by which a launched agent came to serve its session. */
public enum SessionMethod {
  /** The stored session, its history replayed as {@code session/update} notifications. */
  LOAD("session/load"),
  /** The stored session, without a replay (the agent advertised {@code sessionCapabilities.resume}). */
  RESUME("session/resume"),
  /** A new provider session (no token was stored). */
  NEW("session/new");

  private final String wireName;

  SessionMethod(String wireName) {
    this.wireName = wireName;
  }

  /** The method's name on the wire, as the launch's result and logs say it. */
  public String wireName() {
    return wireName;
  }

  /** Whether the stored provider session was kept (loaded or resumed), not replaced by a new one. */
  public boolean keptStoredSession() {
    return this != NEW;
  }
}
