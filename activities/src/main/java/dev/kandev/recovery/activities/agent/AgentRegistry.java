package dev.kandev.recovery.activities.agent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agents this worker runs, one per session, and the launches under way: launch and stop of a
 * session take turns, a stop ends a launch still in its handshake at once, an agent that exits on
 * its own is recorded, and once the worker stops no agent is taken in.
 */
final class AgentRegistry {
  private static final Logger log = LoggerFactory.getLogger(AgentRegistry.class);

  private final AgentExecutions executions;
  private final Duration stopGrace;
  private final Map<String, RunningAgent> running = new ConcurrentHashMap<>();
  /** Serialises launch and stop per session, so a session never has two agents. */
  private final Map<String, ReentrantLock> sessionLocks = new ConcurrentHashMap<>();
  /** The child of each launch under way, from its spawn until the launch returns. */
  private final Map<String, AgentProcess> launching = new ConcurrentHashMap<>();
  private final List<AgentStopListener> stopListeners = new CopyOnWriteArrayList<>();
  /** Guards {@link #closed} and registration in {@link #running}, so close() misses no agent. */
  private final Object registration = new Object();
  private boolean closed;

  AgentRegistry(AgentExecutions executions, Duration stopGrace) {
    this.executions = executions;
    this.stopGrace = stopGrace;
  }

  /** Runs a launch of the session, holding the session's turn until it returns. */
  <T> T launching(String sessionId, Supplier<T> launch) {
    ReentrantLock lock = sessionLock(sessionId);
    lock.lock();
    try {
      return launch.get();
    } finally {
      launching.remove(sessionId);
      lock.unlock();
    }
  }

  /** The launch under way for the session started {@code child}: a stop now kills it. */
  void launchStarted(String sessionId, AgentProcess child) {
    launching.put(sessionId, child);
  }

  /** Makes the agent the session's running one, unless the worker is stopping. */
  boolean register(RunningAgent agent) {
    synchronized (registration) {
      if (closed) {
        return false;
      }
      running.put(agent.sessionId, agent);
    }
    agent.process.process().onExit().thenRun(() -> exitedOnItsOwn(agent));
    return true;
  }

  boolean isClosed() {
    synchronized (registration) {
      return closed;
    }
  }

  boolean isRunning(String sessionId) {
    RunningAgent agent = running.get(sessionId);
    return agent != null && agent.isAlive();
  }

  Optional<RunningAgent> running(String sessionId) {
    return Optional.ofNullable(running.get(sessionId));
  }

  /** The session's agent process: the running one, else the child of a launch under way. */
  Optional<ProcessHandle> process(String sessionId) {
    RunningAgent agent = running.get(sessionId);
    if (agent != null) {
      return Optional.of(agent.process.process().toHandle());
    }
    return Optional.ofNullable(launching.get(sessionId)).map(child -> child.process().toHandle());
  }

  /** The execution id of every agent this worker runs, by session. */
  Map<String, String> runningExecutions() {
    Map<String, String> executions = new HashMap<>();
    running.forEach((sessionId, agent) -> executions.put(sessionId, agent.executionId));
    return executions;
  }

  void onAgentStopped(AgentStopListener listener) {
    stopListeners.add(listener);
  }

  /** See {@link AgentHost#stop}. */
  void stop(String sessionId) {
    ReentrantLock lock = sessionLock(sessionId);
    AgentProcess launchingChild = lock.isHeldByCurrentThread() ? null : launching.get(sessionId);
    if (launchingChild != null) {
      log.warn("session {}: stopping agent pid {} during its launch", sessionId, launchingChild.pid());
      launchingChild.kill();
    }
    lock.lock();
    try {
      RunningAgent agent = running.remove(sessionId);
      if (agent != null) {
        terminate(agent, "");
      }
    } finally {
      lock.unlock();
    }
  }

  /** See {@link AgentHost#stopExecution}. */
  boolean stopExecution(String sessionId, String executionId, String reason) {
    ReentrantLock lock = sessionLock(sessionId);
    lock.lock();
    try {
      RunningAgent agent = running.get(sessionId);
      if (agent == null || !agent.executionId.equals(executionId)) {
        return false;
      }
      running.remove(sessionId);
      terminate(agent, reason);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops every agent, all at once: a stop may take twice the stop grace (stdin closed, then
   * SIGTERM), so one after another N agents would take N times that and outlast the grace period a
   * container gets (Docker, Kubernetes) before its SIGKILL. A launch in its handshake is stopped as
   * well (its agent killed, as {@link #stop} does), not left to a handshake that may outlast the
   * worker; one that had not spawned its agent yet stops its own when it gets to register.
   */
  void close() {
    Set<String> sessionIds = new LinkedHashSet<>();
    synchronized (registration) {
      closed = true;
      sessionIds.addAll(running.keySet());
    }
    sessionIds.addAll(launching.keySet());
    List<Thread> stops = new ArrayList<>();
    for (String sessionId : sessionIds) {
      Thread stop = new Thread(() -> stop(sessionId), "agent-stop-" + sessionId);
      stop.start();
      stops.add(stop);
    }
    for (Thread stop : stops) {
      try {
        stop.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private ReentrantLock sessionLock(String sessionId) {
    return sessionLocks.computeIfAbsent(sessionId, id -> new ReentrantLock());
  }

  private void terminate(RunningAgent agent, String reason) {
    int exitCode = agent.terminate(stopGrace);
    executions.exited(agent, "stopped", reason);
    log.info("session {}: agent stopped (exit code {}){}", agent.sessionId, exitCode, reason.isEmpty() ? "" : ": " + reason);
    stopped(agent);
  }

  /** An agent that exits without being stopped is recorded as failed (or stopped for exit code 0). */
  private void exitedOnItsOwn(RunningAgent agent) {
    if (agent.stopping() || !running.remove(agent.sessionId, agent)) {
      return;
    }
    agent.connection.close();
    int exitCode = agent.process.process().exitValue();
    String tail = agent.stderrTail();
    String error = "agent process exited on its own with code " + exitCode
        + (tail.isBlank() ? "" : "; stderr tail:\n" + tail.strip());
    executions.exited(agent, exitCode == 0 ? "stopped" : "failed", error);
    log.warn("session {}: agent pid {} exited on its own with code {}", agent.sessionId, agent.process.pid(), exitCode);
    stopped(agent);
  }

  private void stopped(RunningAgent agent) {
    for (AgentStopListener listener : stopListeners) {
      try {
        listener.agentStopped(agent.sessionId, agent.executionId);
      } catch (RuntimeException e) {
        log.warn("session {}: a listener failed on the agent's stop", agent.sessionId, e);
      }
    }
  }
}
