package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.acp.AcpError;
import dev.kandev.recovery.activities.acp.AcpHandshake;
import dev.kandev.recovery.workflows.model.AgentFailureClass;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a launch that failed: its child is killed (after its exit code had a moment to show), the
 * exit is recorded, and the classified {@link AgentLaunchException} is built.
 */
final class LaunchFailures {
  private static final Logger log = LoggerFactory.getLogger(LaunchFailures.class);

  private final AgentExecutions executions;

  LaunchFailures(AgentExecutions executions) {
    this.executions = executions;
  }

  /** No agent was started (or none is left to stop): nothing to end. */
  static AgentLaunchException startFailed(String detail, Throwable cause) {
    return new AgentLaunchException(AgentFailureClass.AGENT_PROCESS_START_FAILED, detail, null, "", null, cause);
  }

  /** The agent's handshake failed: ends the child, records the failure, and builds it. */
  AgentLaunchException failed(
      RunningAgent agent, AgentFailureClass failureClass, String detail, AcpError acpError, Throwable cause) {
    // A transport the agent closed usually means the process is exiting: give it a moment to report
    // its code. Asked before we close our end: an agent that exits on stdin's end must not pass for one.
    boolean closedByAgent = agent.connection.isClosed();
    agent.connection.close();
    Integer exitCode = agent.process.exitCodeWithin(closedByAgent ? AcpHandshake.EXIT_OBSERVATION : Duration.ZERO);
    if (exitCode == null) {
      agent.kill();
    }
    AgentLaunchException failure = new AgentLaunchException(
        failureClass, detail, exitCode, agent.stderrTail(), acpError == null ? null : agent.redacted(acpError.describe()), cause);
    executions.exited(agent, "failed", failure.getMessage());
    log.warn("session {}: agent launch failed: {}", agent.sessionId, failureClass.type());
    return failure;
  }

  /**
   * The launch was given up although the agent is healthy (nobody would own it): stops it and
   * builds the failure.
   */
  AgentLaunchException abandoned(RunningAgent agent, String reason, String why) {
    abort(agent, reason);
    return startFailed(why + "; the agent of session " + agent.sessionId + " was stopped", null);
  }

  /** The launching thread was interrupted (the launch was cancelled). */
  CancellationException interrupted(RunningAgent agent, String step) {
    Thread.currentThread().interrupt();
    abort(agent, "launch interrupted during " + step);
    return new CancellationException("launch of session " + agent.sessionId + " interrupted during " + step);
  }

  /** Kills the agent of a launch that cannot go on, and records why. */
  void abort(RunningAgent agent, String reason) {
    agent.kill();
    executions.exited(agent, "failed", reason);
    log.warn("session {}: stopped agent pid {} during its launch: {}", agent.sessionId, agent.process.pid(), reason);
  }
}
