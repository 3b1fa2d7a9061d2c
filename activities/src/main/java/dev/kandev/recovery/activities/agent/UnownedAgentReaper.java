package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.SessionRecord;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.workflows.model.SessionState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the agents of this worker that no session wants any more: the session left the states an
 * agent serves, or a later launch (on any worker) is its current execution in {@code
 * executors_running}. A resume's StopAgent compensation reaches only the worker it runs on; an
 * agent whose launch finished on a worker that had lost touch with Temporal (its activity already
 * timed out and compensated elsewhere) is found here instead. It also forgets the recorded agent
 * processes of this host that ended unrecorded ({@link AgentHost#forgetEndedAgentProcesses}). The
 * worker runs it periodically.
 */
public final class UnownedAgentReaper {
  private static final Logger log = LoggerFactory.getLogger(UnownedAgentReaper.class);
  /** The states in which a session has a live agent: being resumed, idle, or in a turn. */
  private static final Set<SessionState> SERVED =
      Set.of(SessionState.STARTING, SessionState.WAITING_FOR_INPUT, SessionState.RUNNING);

  private final AgentHost host;
  private final Transactions transactions;
  private final SessionStore sessions;
  private final ExecutorsRunningStore executors;

  public UnownedAgentReaper(
      AgentHost host, Transactions transactions, SessionStore sessions, ExecutorsRunningStore executors) {
    this.host = host;
    this.transactions = transactions;
    this.sessions = sessions;
    this.executors = executors;
  }

  /** Stops every agent of this host that no session wants any more; returns their session ids. */
  public List<String> reapOnce() {
    List<String> reaped = new ArrayList<>();
    for (Map.Entry<String, String> agent : host.runningExecutions().entrySet()) {
      String sessionId = agent.getKey();
      String executionId = agent.getValue();
      unwantedBecause(sessionId, executionId).ifPresent(reason -> {
        if (host.stopExecution(sessionId, executionId, reason)) {
          log.warn("session {}: stopped agent execution {}: {}", sessionId, executionId, reason);
          reaped.add(sessionId);
        }
      });
    }
    host.forgetEndedAgentProcesses();
    return reaped;
  }

  private Optional<String> unwantedBecause(String sessionId, String executionId) {
    return transactions.inSnapshot("check the agent of session " + sessionId, h -> {
      Optional<SessionRecord> session = sessions.find(h, sessionId);
      if (session.isEmpty()) {
        return Optional.of("the session no longer exists");
      }
      if (!SERVED.contains(session.get().state())) {
        return Optional.of("the session is " + session.get().state() + ", no resume owns this agent");
      }
      String current = executors.find(h, sessionId).map(ExecutorRecord::agentExecutionId).orElse(null);
      if (!executionId.equals(current)) {
        return Optional.of("a later launch (execution " + current + ") serves the session");
      }
      return Optional.empty();
    });
  }

}
