package dev.kandev.recovery.activities.acp;

import static dev.kandev.recovery.workflows.model.SessionState.RUNNING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.Fence;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.TaskStore;
import dev.kandev.recovery.activities.store.TranscriptMessage;
import dev.kandev.recovery.activities.store.TranscriptStore;
import dev.kandev.recovery.activities.store.TransitionResult;
import dev.kandev.recovery.workflows.model.AgentFailureClass;
import dev.kandev.recovery.workflows.model.TaskState;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the agent processes of this worker: launches an agent for a session and completes its ACP
 * handshake (loading the stored token, or creating a new session only when there is none), keeps it
 * running after the launch returns, runs prompt turns, cancels them, stops agents, and records an
 * agent that dies on its own in {@code executors_running} so recovery can find it.
 */
public final class AgentHost implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AgentHost.class);

  /** How long a closed transport is given to turn into an exit code. */
  private static final Duration EXIT_OBSERVATION = Duration.ofSeconds(2);
  private static final int STORED_ERROR_CHARS = 2000;

  private final SessionStore sessions;
  private final TaskStore tasks;
  private final SessionIdentityStore identities;
  private final ExecutorsRunningStore executors;
  private final TranscriptStore transcripts;
  private final AgentProfiles profiles;
  private final AcpTimeouts timeouts;
  private final String host;
  private final String workerInstance;
  private final PermissionPolicy permissions;
  private final ObjectMapper json = Json.mapper();
  private final Map<String, String> workerEnv = System.getenv();
  private final Map<String, RunningAgent> running = new ConcurrentHashMap<>();
  /** Guards {@link #closed} and registration in {@link #running}, so close() misses no agent. */
  private final Object registration = new Object();
  private boolean closed;
  /** Serialises launch and stop per session, so a session never has two agents. */
  private final Map<String, ReentrantLock> sessionLocks = new ConcurrentHashMap<>();
  /** The child of each launch under way, from its spawn until the launch returns. */
  private final Map<String, AgentProcess> launching = new ConcurrentHashMap<>();

  public AgentHost(
      SessionStore sessions,
      TaskStore tasks,
      SessionIdentityStore identities,
      ExecutorsRunningStore executors,
      TranscriptStore transcripts,
      AgentProfiles profiles,
      AcpTimeouts timeouts,
      String host,
      String workerInstance,
      PermissionPolicy permissions) {
    this.sessions = sessions;
    this.tasks = tasks;
    this.identities = identities;
    this.executors = executors;
    this.transcripts = transcripts;
    this.profiles = profiles;
    this.timeouts = timeouts;
    this.host = host;
    this.workerInstance = workerInstance;
    this.permissions = permissions;
  }

  /** A host whose stores all use {@code dataSource}. */
  public static AgentHost create(
      DataSource dataSource,
      AgentProfiles profiles,
      AcpTimeouts timeouts,
      String host,
      String workerInstance,
      PermissionPolicy permissions) {
    return new AgentHost(
        new SessionStore(dataSource, Json.mapper()),
        new TaskStore(dataSource),
        new SessionIdentityStore(dataSource),
        new ExecutorsRunningStore(dataSource),
        new TranscriptStore(dataSource),
        profiles,
        timeouts,
        host,
        workerInstance,
        permissions);
  }

  // ---- launch --------------------------------------------------------------------------------

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
    ReentrantLock lock = sessionLock(request.sessionId());
    lock.lock();
    try {
      return launchLocked(request);
    } finally {
      launching.remove(request.sessionId());
      lock.unlock();
    }
  }

  private ReentrantLock sessionLock(String sessionId) {
    return sessionLocks.computeIfAbsent(sessionId, id -> new ReentrantLock());
  }

  private LaunchResult launchLocked(LaunchRequest request) {
    String sessionId = request.sessionId();
    AgentProfile profile;
    try {
      profile = profiles.get(request.agentId());
    } catch (IllegalArgumentException e) {
      throw new AgentLaunchException(
          AgentFailureClass.AGENT_PROCESS_START_FAILED, e.getMessage(), null, "", null, e);
    }
    if (isClosed()) {
      throw new AgentLaunchException(AgentFailureClass.AGENT_PROCESS_START_FAILED,
          "this worker is stopping; no agent was started for session " + sessionId, null, "", null, null);
    }
    SessionIdentity identity = identities.read(sessionId);
    stop(sessionId);

    String executionId = UUID.randomUUID().toString();
    List<String> secrets = AgentEnvironment.secretValues(profile.env(), request.extraEnv());
    Map<String, String> env = AgentEnvironment.build(workerEnv, profile.env(), request.extraEnv());
    Path workspace = request.workspace().toAbsolutePath().normalize();
    AgentProcess process = spawn(sessionId, executionId, profile, workspace, env);
    log.info("session {}: started agent '{}' pid {} execution {}", sessionId, profile.agentId(), process.pid(), executionId);

    RunningAgent agent = new RunningAgent(sessionId, executionId, process, secrets);
    agent.connect(new ClientRequests(sessionId, workspace, permissions, json), json);
    try {
      AcpHandshake.AgentInfo info = initialize(agent);
      int replayed = 0;
      boolean loaded = identity.hasToken();
      if (loaded) {
        replayed = load(agent, info, identity.resumeToken(), workspace);
      } else {
        String newId = newSession(agent, workspace);
        identities.replaceAfterNewSession(sessionId, newId, request.fence());
        agent.providerSessionId = newId;
      }
      if (!executors.markRunning(sessionId, executionId, request.fence())) {
        // The resume gave up on this launch while it ran (e.g. this worker stalled past the
        // heartbeat timeout and the resume was compensated elsewhere), or a later launch serves the
        // session now: this late result must not take the session over.
        String why = "the resume that asked for it gave up on it or a later launch took its place";
        abort(agent, why);
        throw launchAbandoned(sessionId, why);
      }
      if (!register(agent)) {
        // The worker began stopping during the handshake: nobody would ever stop this agent.
        abort(agent, "the worker stopped during the launch");
        throw launchAbandoned(sessionId, "this worker stopped while it launched the agent");
      }
      process.process().onExit().thenRun(() -> onExit(agent));
      log.info("session {}: agent {} {} serves provider session {} ({}, {} messages replayed)",
          sessionId, info.name(), info.version(), agent.providerSessionId, loaded ? "loaded" : "new", replayed);
      return new LaunchResult(
          agent.providerSessionId, loaded, process.pid(), executionId, info.name(), info.version(), replayed);
    } catch (AgentLaunchException e) {
      throw e;
    } catch (RuntimeException e) {
      abort(agent, "launch failed: " + e.getMessage());
      throw e;
    }
  }

  private static AgentLaunchException launchAbandoned(String sessionId, String why) {
    return new AgentLaunchException(AgentFailureClass.AGENT_PROCESS_START_FAILED,
        why + "; the agent of session " + sessionId + " was stopped", null, "", null, null);
  }

  /** Starts the child and records it as the session's current execution. */
  private AgentProcess spawn(
      String sessionId, String executionId, AgentProfile profile, Path workspace, Map<String, String> env) {
    AgentProcess process;
    try {
      process = AgentProcess.start(sessionId, profile, workspace, env, timeouts.spawn());
    } catch (IOException | TimeoutException e) {
      AgentLaunchException failure = new AgentLaunchException(
          AgentFailureClass.AGENT_PROCESS_START_FAILED,
          "could not start agent '" + profile.agentId() + "' " + profile.argv() + " in "
              + profile.workingDirectoryFor(workspace) + ": " + e.getMessage(),
          null, "", null, e);
      executors.recordStartFailure(sessionId, executionId, host, workerInstance, stored(failure.getMessage()));
      throw failure;
    }
    try {
      executors.recordStarting(sessionId, executionId, host, workerInstance, process.pid());
    } catch (RuntimeException e) {
      process.kill();
      throw e;
    }
    launching.put(sessionId, process);
    return process;
  }

  private AcpHandshake.AgentInfo initialize(RunningAgent agent) {
    try {
      return AcpHandshake.initialize(agent.connection, agent.process.process(), true, timeouts.initialize(), json);
    } catch (AcpHandshake.Failure e) {
      AgentFailureClass failureClass = e.kind() == AcpHandshake.FailureKind.EXITED
          ? AgentFailureClass.AGENT_EXITED_BEFORE_INITIALIZE
          : AgentFailureClass.AGENT_INITIALIZE_FAILED;
      throw failure(agent, failureClass, e.getMessage(), e.acpError(), e);
    } catch (InterruptedException e) {
      throw interrupted(agent, "initialize");
    }
  }

  private int load(RunningAgent agent, AcpHandshake.AgentInfo info, String token, Path workspace) {
    if (!info.loadSession()) {
      throw failure(agent, AgentFailureClass.AGENT_CANNOT_LOAD_SESSIONS,
          "a resume token is stored but agent " + info.name() + " " + info.version()
              + " does not declare the loadSession capability; it is not replaced by a new session", null, null);
    }
    agent.providerSessionId = token;
    agent.collector.start();
    try {
      agent.protocol.loadSession(token, workspace, timeouts.sessionLoad());
    } catch (AcpRemoteException e) {
      agent.collector.finish();
      throw failure(agent, AgentFailureClass.AGENT_SESSION_LOAD_REJECTED,
          "the agent rejected session/load of stored session " + token, e.error(), e);
    } catch (AcpTransportClosedException e) {
      agent.collector.finish();
      throw failure(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "the transport closed before session/load of " + token + " completed", null, e);
    } catch (TimeoutException e) {
      agent.collector.finish();
      throw failure(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "session/load of " + token + " was not answered within " + timeouts.sessionLoad(), null, e);
    } catch (InterruptedException e) {
      throw interrupted(agent, "session/load");
    }
    List<TranscriptMessage> replayed = agent.collector.finish();
    int inserted = transcripts.recordReplay(agent.sessionId, replayed);
    log.debug("session {}: replay of {} messages added {} to the transcript", agent.sessionId, replayed.size(), inserted);
    return replayed.size();
  }

  private String newSession(RunningAgent agent, Path workspace) {
    String id;
    try {
      id = agent.protocol.newSession(workspace, timeouts.sessionNew());
    } catch (AcpRemoteException e) {
      throw failure(agent, AgentFailureClass.AGENT_SESSION_NEW_FAILED,
          "the agent answered session/new with an error", e.error(), e);
    } catch (AcpTransportClosedException e) {
      throw failure(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "the transport closed before session/new completed", null, e);
    } catch (TimeoutException e) {
      throw failure(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "session/new was not answered within " + timeouts.sessionNew(), null, e);
    } catch (InterruptedException e) {
      throw interrupted(agent, "session/new");
    }
    if (id.isBlank()) {
      throw failure(agent, AgentFailureClass.AGENT_SESSION_NEW_FAILED,
          "the agent answered session/new without a sessionId", null, null);
    }
    return id;
  }

  /** Ends a failed launch's child, records the failure, and builds the classified exception. */
  private AgentLaunchException failure(
      RunningAgent agent, AgentFailureClass failureClass, String detail, AcpError acpError, Throwable cause) {
    agent.connection.close();
    // A closed transport usually means the process is exiting: give it a moment to report its code.
    boolean transportGone = agent.connection.isClosed();
    Integer exitCode = agent.process.exitCodeWithin(transportGone ? EXIT_OBSERVATION : Duration.ZERO);
    if (exitCode == null) {
      agent.process.kill();
    }
    AgentLaunchException failure = new AgentLaunchException(
        failureClass, detail, exitCode, agent.stderrTail(), acpError == null ? null : acpError.describe(), cause);
    recordExit(agent, "failed", failure.getMessage());
    log.warn("session {}: agent launch failed: {}", agent.sessionId, failureClass.type());
    return failure;
  }

  private CancellationException interrupted(RunningAgent agent, String step) {
    Thread.currentThread().interrupt();
    abort(agent, "launch interrupted during " + step);
    return new CancellationException("launch of session " + agent.sessionId + " interrupted during " + step);
  }

  private void abort(RunningAgent agent, String reason) {
    agent.connection.close();
    agent.process.kill();
    recordExit(agent, "failed", reason);
    log.warn("session {}: stopped agent pid {} during its launch: {}", agent.sessionId, agent.process.pid(), reason);
  }

  // ---- prompt turns --------------------------------------------------------------------------

  /**
   * Runs one prompt turn: WAITING_FOR_INPUT → RUNNING (task IN_PROGRESS), {@code session/prompt}
   * with its updates, then the turn's messages are persisted, the task goes to REVIEW and only then
   * the session returns to WAITING_FOR_INPUT. A turn that cannot finish still persists what arrived
   * and settles the session at WAITING_FOR_INPUT with the error, then throws.
   *
   * @throws IllegalStateException no agent runs for the session here, a turn is in progress, or
   *     the session is not WAITING_FOR_INPUT
   * @throws AgentTurnException the turn did not finish
   */
  public TurnResult prompt(String sessionId, String text) {
    RunningAgent agent = running.get(sessionId);
    if (agent == null) {
      throw new IllegalStateException("no agent is running for session " + sessionId + " on " + host + "/" + workerInstance);
    }
    if (!agent.turnLock.tryLock()) {
      throw new IllegalStateException("a prompt turn is already in progress for session " + sessionId);
    }
    try {
      String taskId = sessions.get(sessionId).taskId();
      TransitionResult started = sessions.transition(
          sessionId, EnumSet.of(WAITING_FOR_INPUT), RUNNING, "prompt turn started", null, Fence.none());
      if (!started.won()) {
        throw new IllegalStateException(
            "session " + sessionId + " is " + started.now() + "; a prompt turn starts from WAITING_FOR_INPUT");
      }
      tasks.transitionTask(taskId, TaskState.BEFORE_TURN, TaskState.IN_PROGRESS);
      int persisted = transcripts.appendLive(sessionId, List.of(new TranscriptMessage("user", text, null)));
      agent.collector.start();
      try {
        String stopReason = runTurn(agent, text);
        List<TranscriptMessage> messages = agent.collector.finish();
        persisted += transcripts.appendLive(sessionId, messages);
        settle(sessionId, taskId, "prompt turn finished: " + stopReason, null);
        return new TurnResult(stopReason, agentText(messages), persisted);
      } catch (AgentTurnException e) {
        transcripts.appendLive(sessionId, agent.collector.finish());
        settle(sessionId, taskId, "prompt turn failed", stored(e.getMessage()));
        throw e;
      } finally {
        agent.promptSent = false;
        agent.cancelRequested = false;
      }
    } finally {
      agent.turnLock.unlock();
    }
  }

  private String runTurn(RunningAgent agent, String text) {
    CompletableFuture<JsonNode> answer = agent.protocol.promptAsync(agent.providerSessionId, text);
    agent.promptSent = true;
    try {
      if (agent.cancelRequested) {
        agent.protocol.cancel(agent.providerSessionId);
      }
      try {
        return agent.connection.await(answer, "session/prompt", timeouts.turn()).path("stopReason").asText("end_turn");
      } catch (TimeoutException e) {
        log.warn("session {}: turn exceeded {}; cancelling it", agent.sessionId, timeouts.turn());
        agent.protocol.cancel(agent.providerSessionId);
        try {
          return agent.connection.await(answer, "session/prompt", timeouts.stopGrace()).path("stopReason").asText("cancelled");
        } catch (TimeoutException notAcknowledged) {
          stop(agent.sessionId);
          throw new AgentTurnException("the turn exceeded " + timeouts.turn()
              + " and the agent did not acknowledge the cancel; the agent was stopped", null, agent.stderrTail(), e);
        }
      }
    } catch (AcpRemoteException e) {
      throw new AgentTurnException("the agent answered session/prompt with an error " + e.error().describe(),
          null, agent.stderrTail(), e);
    } catch (AcpTransportClosedException e) {
      Integer exitCode = agent.process.exitCodeWithin(EXIT_OBSERVATION);
      throw new AgentTurnException("the agent transport closed during the turn"
          + (exitCode == null ? "" : " (the process exited)"), exitCode, agent.stderrTail(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentTurnException("interrupted while waiting for the turn", null, agent.stderrTail(), e);
    }
  }

  /** The turn's response is persisted before this: REVIEW first, then the session settles. */
  private void settle(String sessionId, String taskId, String reason, String error) {
    tasks.transitionTask(taskId, EnumSet.of(TaskState.IN_PROGRESS), TaskState.REVIEW);
    TransitionResult settled = sessions.transition(
        sessionId, EnumSet.of(RUNNING), WAITING_FOR_INPUT, reason, error, Fence.none());
    if (!settled.won()) {
      log.info("session {}: turn ended but the session is {} now; left as it is", sessionId, settled.now());
    }
  }

  private static String agentText(List<TranscriptMessage> messages) {
    return messages.stream().filter(m -> m.role().equals("agent")).map(TranscriptMessage::content)
        .collect(Collectors.joining("\n"));
  }

  /** Asks the agent to end the current turn; the turn then finishes with stop reason {@code cancelled}. */
  public void cancelTurn(String sessionId) {
    RunningAgent agent = running.get(sessionId);
    if (agent == null || !agent.turnLock.isLocked()) {
      return;
    }
    // Whichever of this and the turn sees the other's flag sends the cancel: never lost, maybe twice.
    agent.cancelRequested = true;
    if (!agent.promptSent) {
      return;
    }
    try {
      agent.protocol.cancel(agent.providerSessionId);
    } catch (AcpTransportClosedException e) {
      log.debug("session {}: cancel not sent, transport closed", sessionId);
    }
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  public boolean isRunning(String sessionId) {
    RunningAgent agent = running.get(sessionId);
    return agent != null && agent.process.process().isAlive();
  }

  /** The pid of the session's running agent. */
  public Optional<Long> pid(String sessionId) {
    return Optional.ofNullable(running.get(sessionId)).map(a -> a.process.pid());
  }

  /** The provider-native session id the running agent serves. */
  public Optional<String> providerSessionId(String sessionId) {
    return Optional.ofNullable(running.get(sessionId)).map(a -> a.providerSessionId);
  }

  /**
   * Stops the session's agent (stdin closed, then SIGTERM, then SIGKILL) and waits for it. Idempotent.
   * A launch under way is ended by killing its child: its handshake would otherwise hold the session
   * until the agent answers or the ACP timeout (minutes), and a cancelled resume must stop now.
   */
  public void stop(String sessionId) {
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

  /** The execution id of every agent this host runs, by session. */
  public Map<String, String> runningExecutions() {
    Map<String, String> executions = new HashMap<>();
    running.forEach((sessionId, agent) -> executions.put(sessionId, agent.executionId));
    return executions;
  }

  /**
   * Stops the session's agent if it still is execution {@code executionId} (not an agent a newer
   * launch started meanwhile); {@code reason} is recorded. Returns whether it stopped one.
   */
  public boolean stopExecution(String sessionId, String executionId, String reason) {
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

  private void terminate(RunningAgent agent, String reason) {
    agent.stopping = true;
    agent.connection.close();
    int exitCode = agent.process.terminate(timeouts.stopGrace());
    recordExit(agent, "stopped", reason);
    log.info("session {}: agent stopped (exit code {}){}", agent.sessionId, exitCode, reason.isEmpty() ? "" : ": " + reason);
  }

  /** An agent that exits without being stopped is recorded as failed (or stopped for exit code 0). */
  private void onExit(RunningAgent agent) {
    if (agent.stopping) {
      return;
    }
    running.remove(agent.sessionId, agent);
    agent.connection.close();
    int exitCode = agent.process.process().exitValue();
    String tail = agent.stderrTail();
    String error = "agent process exited on its own with code " + exitCode
        + (tail.isBlank() ? "" : "; stderr tail:\n" + tail.strip());
    recordExit(agent, exitCode == 0 ? "stopped" : "failed", stored(error));
    log.warn("session {}: agent pid {} exited on its own with code {}", agent.sessionId, agent.process.pid(), exitCode);
  }

  private void recordExit(RunningAgent agent, String status, String error) {
    try {
      executors.markExited(agent.sessionId, agent.executionId, status, stored(error));
    } catch (RuntimeException e) {
      log.error("session {}: could not record agent exit ({})", agent.sessionId, status, e);
    }
  }

  private static String stored(String text) {
    return text.length() <= STORED_ERROR_CHARS ? text : text.substring(0, STORED_ERROR_CHARS) + "…";
  }

  /**
   * Stops every agent this host runs; a launch still in its handshake stops its own agent when it
   * gets there, and no new launch starts.
   */
  @Override
  public void close() {
    List<String> sessionIds;
    synchronized (registration) {
      closed = true;
      sessionIds = new ArrayList<>(running.keySet());
    }
    sessionIds.forEach(this::stop);
  }

  private boolean isClosed() {
    synchronized (registration) {
      return closed;
    }
  }

  /** Makes the agent the session's running one, unless the host is closed. */
  private boolean register(RunningAgent agent) {
    synchronized (registration) {
      if (closed) {
        return false;
      }
      running.put(agent.sessionId, agent);
      return true;
    }
  }

  /** One live agent: its process, connection and the state of its current turn. */
  private static final class RunningAgent {
    final String sessionId;
    final String executionId;
    final AgentProcess process;
    final List<String> secrets;
    final TranscriptCollector collector = new TranscriptCollector();
    final ReentrantLock turnLock = new ReentrantLock();
    AcpConnection connection;
    AcpProtocol protocol;
    volatile String providerSessionId;
    volatile boolean stopping;
    volatile boolean promptSent;
    volatile boolean cancelRequested;

    RunningAgent(String sessionId, String executionId, AgentProcess process, List<String> secrets) {
      this.sessionId = sessionId;
      this.executionId = executionId;
      this.process = process;
      this.secrets = secrets;
    }

    void connect(ClientRequests requests, ObjectMapper json) {
      connection = new AcpConnection(
          sessionId, process.process().getInputStream(), process.process().getOutputStream(), json,
          this::onNotification, requests);
      protocol = new AcpProtocol(connection, json);
    }

    private void onNotification(String method, JsonNode params) {
      if (!method.equals("session/update")) {
        return;
      }
      String target = params.path("sessionId").asText();
      if (providerSessionId == null || providerSessionId.equals(target)) {
        collector.onUpdate(params.path("update"));
      }
    }

    String stderrTail() {
      return AgentEnvironment.redact(process.stderrTail(), secrets);
    }
  }
}
