package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.store.AgentProcessStore;
import dev.kandev.recovery.activities.store.AgentProcessStore.AgentProcess;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.Transactions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code executors_running} record of this worker's agent executions: started (with its pid),
 * failed to start, running, exited; and its process (pid and start instant) in {@code
 * agent_processes} until its exit is recorded. Error texts are cut to {@value #STORED_ERROR_CHARS} chars.
 */
final class AgentExecutions {
  private static final Logger log = LoggerFactory.getLogger(AgentExecutions.class);
  static final int STORED_ERROR_CHARS = 2000;

  private final Transactions transactions;
  private final ExecutorsRunningStore executors;
  private final AgentProcessStore processes;
  private final String host;
  private final String workerInstance;

  AgentExecutions(Transactions transactions, ExecutorsRunningStore executors, AgentProcessStore processes,
      String host, String workerInstance) {
    this.transactions = transactions;
    this.executors = executors;
    this.processes = processes;
    this.host = host;
    this.workerInstance = workerInstance;
  }

  /** {@code startedAt}: the process's start instant as the kernel reports it; null if unknown. */
  void starting(String sessionId, String executionId, long pid, Instant startedAt) {
    transactions.run("record the agent start of session " + sessionId, h -> {
      executors.recordStarting(h, sessionId, executionId, host, workerInstance, pid);
      processes.record(h, new AgentProcess(sessionId, executionId, host, workerInstance, pid, startedAt));
    });
  }

  /**
   * The session's agent processes recorded on this host that nobody has seen end: those of {@code
   * agent_processes}, and the pid of its current execution row if that one is not among them (a
   * launch of a release before V15: no start instant).
   */
  List<AgentProcess> recordedOnThisHost(String sessionId) {
    return transactions.inTransaction("read the recorded agent processes of session " + sessionId, h -> {
      List<AgentProcess> recorded = new ArrayList<>(processes.onHost(h, sessionId, host));
      Optional<ExecutorRecord> row = executors.find(h, sessionId);
      if (row.isPresent() && host.equals(row.get().host()) && row.get().pid() != null && row.get().pid() > 0
          && ExecutorsRunningStore.LIVE.contains(row.get().status())
          && recorded.stream().noneMatch(p -> p.executionId().equals(row.get().agentExecutionId()))) {
        ExecutorRecord r = row.get();
        recorded.add(new AgentProcess(sessionId, r.agentExecutionId(), host, r.workerInstance(), r.pid(), null));
      }
      return recorded;
    });
  }

  /** Every agent process recorded on this host that nobody has seen end. */
  List<AgentProcess> recordedOnThisHost() {
    return transactions.inTransaction("read the recorded agent processes of host " + host,
        h -> processes.onHost(h, host));
  }

  /** The process of {@code executionId} is gone. */
  void forgetProcess(String sessionId, String executionId) {
    transactions.run("forget the ended agent process of session " + sessionId, h -> processes.forget(h, executionId));
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
      transactions.inTransaction("record the exit of the agent of session " + agent.sessionId, h -> {
        processes.forget(h, agent.executionId);
        return executors.markExited(h, agent.sessionId, agent.executionId, status, stored(error));
      });
    } catch (RuntimeException e) {
      log.error("session {}: could not record agent exit ({})", agent.sessionId, status, e);
    }
  }

  private static String stored(String text) {
    return text.length() <= STORED_ERROR_CHARS ? text : text.substring(0, STORED_ERROR_CHARS) + "…";
  }
}
