package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.Transactions;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code executors_running} record of this worker's agent executions: started (with its pid),
 * failed to start, running, exited. Error texts are cut to {@value #STORED_ERROR_CHARS} chars.
 */
final class AgentExecutions {
  private static final Logger log = LoggerFactory.getLogger(AgentExecutions.class);
  static final int STORED_ERROR_CHARS = 2000;

  private final Transactions transactions;
  private final ExecutorsRunningStore executors;
  private final String host;
  private final String workerInstance;

  AgentExecutions(Transactions transactions, ExecutorsRunningStore executors, String host, String workerInstance) {
    this.transactions = transactions;
    this.executors = executors;
    this.host = host;
    this.workerInstance = workerInstance;
  }

  void starting(String sessionId, String executionId, long pid) {
    transactions.run("record the agent start of session " + sessionId,
        h -> executors.recordStarting(h, sessionId, executionId, host, workerInstance, pid));
  }

  void startFailed(String sessionId, String executionId, String error) {
    transactions.run("record the failed agent start of session " + sessionId,
        h -> executors.recordStartFailure(h, sessionId, executionId, host, workerInstance, stored(error)));
  }

  /**
   * Marks the execution running; false if the launch lost the session meanwhile (its resume gave
   * up on it, or a later launch is the session's execution now).
   */
  boolean running(String sessionId, String executionId, Fence fence) {
    return transactions.inTransaction("mark the agent of session " + sessionId + " running",
        h -> executors.markRunning(h, sessionId, executionId, fence));
  }

  /** The session's state if another writer moved it out of {@code STARTING} during the launch. */
  Optional<String> leftStartingByAnotherWriter(String sessionId) {
    return transactions.inTransaction("read the state of session " + sessionId,
        h -> executors.leftStartingByAnotherWriter(h, sessionId));
  }

  /** Records the exit; never throws, since it runs where an agent is already gone. */
  void exited(RunningAgent agent, String status, String error) {
    try {
      transactions.inTransaction("record the exit of the agent of session " + agent.sessionId,
          h -> executors.markExited(h, agent.sessionId, agent.executionId, status, stored(error)));
    } catch (RuntimeException e) {
      log.error("session {}: could not record agent exit ({})", agent.sessionId, status, e);
    }
  }

  private static String stored(String text) {
    return text.length() <= STORED_ERROR_CHARS ? text : text.substring(0, STORED_ERROR_CHARS) + "…";
  }
}
