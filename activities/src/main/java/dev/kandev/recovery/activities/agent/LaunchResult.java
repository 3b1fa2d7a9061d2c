package dev.kandev.recovery.activities.agent;

/**
 * A launched agent serving its session.
 *
 * @param method how the agent came to serve it: the stored token loaded or resumed, or a new session
 * @param replayedMessages history messages the agent replayed during session/load (0 for the others)
 */
public record LaunchResult(
    String providerSessionId,
    SessionMethod method,
    long pid,
    String executionId,
    String agentName,
    String agentVersion,
    int replayedMessages) {

  /** True if the stored token was reattached (session/load or session/resume), false for a session/new. */
  public boolean loaded() {
    return method.keptStoredSession();
  }
}
