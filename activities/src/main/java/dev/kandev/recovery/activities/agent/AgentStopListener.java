package dev.kandev.recovery.activities.agent;

/** Told when an agent of this worker stopped: stopped by the worker, reaped, or exited on its own. */
@FunctionalInterface
public interface AgentStopListener {
  void agentStopped(String sessionId, String executionId);
}
