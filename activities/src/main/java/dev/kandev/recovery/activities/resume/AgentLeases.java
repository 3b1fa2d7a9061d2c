package dev.kandev.recovery.activities.resume;

import dev.kandev.recovery.activities.agent.AgentHost;
import dev.kandev.recovery.activities.agent.AgentStopListener;
import dev.kandev.recovery.activities.credentials.broker.CredentialBroker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Revokes the credential leases an agent was launched with as soon as that agent stops, however it
 * stops: it exits or crashes, something kills it, its resume's compensation or the reaper stops it,
 * or the worker closes. A lease token serves only while its agent runs (docs/credentials.md, threat
 * model). Leases are revoked by id, so a later launch's leases for the same session are untouched.
 */
final class AgentLeases implements AgentStopListener {
  private static final Logger log = LoggerFactory.getLogger(AgentLeases.class);

  private final CredentialBroker broker;
  private final AgentHost host;
  /** The leases of each running agent of this worker, by execution id. */
  private final Map<String, List<String>> byExecution = new ConcurrentHashMap<>();

  AgentLeases(CredentialBroker broker, AgentHost host) {
    this.broker = broker;
    this.host = host;
    host.onAgentStopped(this);
  }

  /** The launch of {@code executionId} handed its agent {@code leaseIds}. */
  void launched(String sessionId, String executionId, List<String> leaseIds) {
    if (leaseIds.isEmpty()) {
      return;
    }
    byExecution.put(executionId, leaseIds);
    // It may have stopped before its leases were recorded here, and then nothing else would revoke them.
    if (!executionId.equals(host.runningExecutions().get(sessionId))) {
      agentStopped(sessionId, executionId);
    }
  }

  /** A launch that did not leave its agent running: the tokens it minted must not outlive it. */
  void launchEnded(String sessionId, List<String> leaseIds, String why) {
    revoke(sessionId, leaseIds, why);
  }

  @Override
  public void agentStopped(String sessionId, String executionId) {
    List<String> leaseIds = byExecution.remove(executionId);
    if (leaseIds != null) {
      revoke(sessionId, leaseIds, "its agent (execution " + executionId + ") stopped");
    }
  }

  private void revoke(String sessionId, List<String> leaseIds, String why) {
    leaseIds.forEach(broker::revoke);
    if (!leaseIds.isEmpty()) {
      log.info("session {}: revoked credential lease(s) {}: {}", sessionId, leaseIds, why);
    }
  }
}
