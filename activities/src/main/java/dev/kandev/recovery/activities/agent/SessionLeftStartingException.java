package dev.kandev.recovery.activities.agent;

/**
 * The agent answered, but another writer had moved its session out of {@code STARTING} meanwhile
 * (Kandev's boot settling it at {@code WAITING_FOR_INPUT}, say): a race the launch lost, not a
 * failure of the agent, which was stopped. Nothing of the other writer's is undone.
 */
public final class SessionLeftStartingException extends RuntimeException {
  public SessionLeftStartingException(String sessionId, String state) {
    super("session " + sessionId + " became " + state + " during the launch (another writer changed its state);"
        + " its agent was stopped and the other writer's state is kept");
  }
}
