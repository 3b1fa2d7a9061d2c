package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.AgentProcessStore;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.store.TranscriptStore;
import java.util.Map;
import java.util.Optional;

/**
 * The agent processes of this worker: launches an agent for a session ({@link AgentLauncher}),
 * keeps it running after the launch returns and stops it ({@link AgentRegistry}), and records an
 * agent that dies on its own in {@code executors_running} so recovery can find it.
 */
public final class AgentHost implements AutoCloseable {
  private final String host;
  private final AgentRegistry registry;
  private final AgentLauncher launcher;
  private final EarlierAgentStopper earlierAgents;

  public AgentHost(
      AgentHostSettings settings,
      Transactions transactions,
      SessionIdentityStore identities,
      ExecutorsRunningStore executors,
      TranscriptStore transcripts) {
    this.host = settings.host();
    AgentExecutions executions =
        new AgentExecutions(transactions, executors, new AgentProcessStore(), settings.host(), settings.workerInstance());
    LaunchFailures failures = new LaunchFailures(executions);
    this.registry = new AgentRegistry(executions, settings.timeouts().stopGrace());
    this.earlierAgents = new EarlierAgentStopper(executions, settings.timeouts().stopGrace());
    this.launcher = new AgentLauncher(settings, registry, executions, earlierAgents, transactions, identities,
        new SessionHandshake(settings.timeouts(), transactions, identities, transcripts, failures, Json.mapper()),
        failures, Json.mapper());
  }

  /**
   * Starts the session's agent and completes the handshake. A stored token is loaded with {@code
   * session/load} and never replaced by a {@code session/new}; without one, a {@code session/new}
   * id is persisted (under the request's fence) once the agent created it. Any agent this host still
   * runs for the session is stopped first. The session state is not changed.
   *
   * @throws AgentLaunchException the launch failed; the child is gone, {@code executors_running}
   *     says failed, and the stored token is untouched
   */
  public LaunchResult launch(LaunchRequest request) {
    return launcher.launch(request);
  }

  /** The executor host this host's agents run on (its sessions' {@code executor_host}). */
  public String host() {
    return host;
  }

  public boolean isRunning(String sessionId) {
    return registry.isRunning(sessionId);
  }

  /**
   * Stops the session's agent (stdin closed, then SIGTERM, then SIGKILL) and waits for it. Idempotent.
   * A launch under way is ended by killing its child: its handshake would otherwise hold the session
   * until the agent answers or the ACP timeout (minutes), and a cancelled resume must stop now.
   */
  public void stop(String sessionId) {
    registry.stop(sessionId);
  }

  /**
   * The process of the session's agent on this host, from its spawn (during the launch) until it
   * stops: the root of the only process tree its credential lease redeems for.
   */
  public Optional<ProcessHandle> agentProcess(String sessionId) {
    return registry.process(sessionId);
  }

  /** The execution id of every agent this host runs, by session. */
  public Map<String, String> runningExecutions() {
    return registry.runningExecutions();
  }

  /**
   * Stops the session's agent if it still is execution {@code executionId} (not an agent a newer
   * launch started meanwhile); {@code reason} is recorded. Returns whether it stopped one.
   */
  public boolean stopExecution(String sessionId, String executionId, String reason) {
    return registry.stopExecution(sessionId, executionId, reason);
  }

  /**
   * Forgets the recorded agent processes of this host that ended unrecorded (their worker was
   * killed) or whose pid belongs to another process now; returns how many.
   */
  public int forgetEndedAgentProcesses() {
    return earlierAgents.forgetEnded();
  }

  /** {@code listener} is told of every agent of this host that stops from now on, however it stops. */
  public void onAgentStopped(AgentStopListener listener) {
    registry.onAgentStopped(listener);
  }

  /** The session's running agent, for prompt turns. */
  Optional<RunningAgent> running(String sessionId) {
    return registry.running(sessionId);
  }

  /**
   * Stops every agent this host runs; a launch still in its handshake stops its own agent when it
   * gets there, and no new launch starts.
   */
  @Override
  public void close() {
    registry.close();
  }
}
