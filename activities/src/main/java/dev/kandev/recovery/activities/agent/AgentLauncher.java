package dev.kandev.recovery.activities.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.acp.ClientRequests;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.tracing.Spans;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Launches a session's agent on this worker: stops the one it may still run (and one another worker
 * of this host left, {@link EarlierAgentStopper}), starts the child with
 * its environment built from nothing, records the execution, has {@link SessionHandshake} bring it
 * to serve the session, and hands it to the {@link AgentRegistry} only if the launch still owns the
 * session then. A launch never leaves an agent that nobody owns.
 */
final class AgentLauncher {
  private static final Logger log = LoggerFactory.getLogger(AgentLauncher.class);

  private final AgentHostSettings settings;
  private final AgentRegistry registry;
  private final AgentExecutions executions;
  private final EarlierAgentStopper earlierAgents;
  private final Transactions transactions;
  private final SessionIdentityStore identities;
  private final SessionHandshake handshake;
  private final LaunchFailures failures;
  private final ObjectMapper json;

  AgentLauncher(
      AgentHostSettings settings, AgentRegistry registry, AgentExecutions executions, EarlierAgentStopper earlierAgents,
      Transactions transactions,
      SessionIdentityStore identities,
      SessionHandshake handshake, LaunchFailures failures, ObjectMapper json) {
    this.settings = settings;
    this.registry = registry;
    this.executions = executions;
    this.earlierAgents = earlierAgents;
    this.transactions = transactions;
    this.identities = identities;
    this.handshake = handshake;
    this.failures = failures;
    this.json = json;
  }

  /** See {@link AgentHost#launch}. */
  LaunchResult launch(LaunchRequest request) {
    Span span = Spans.start("agent.launch");
    span.setAttribute("kandev.session.id", request.sessionId());
    span.setAttribute("kandev.agent.id", request.agentId());
    return Spans.within(span, () -> {
      LaunchResult result = registry.launching(request.sessionId(), () -> launchLocked(request));
      span.setAttribute("process.pid", result.pid());
      span.setAttribute("kandev.session.loaded", result.loaded());
      span.setAttribute("kandev.session.method", result.method().wireName());
      return result;
    });
  }

  private LaunchResult launchLocked(LaunchRequest request) {
    String sessionId = request.sessionId();
    AgentProfile profile;
    try {
      profile = settings.profiles().get(request.agentId());
    } catch (IllegalArgumentException e) {
      throw LaunchFailures.startFailed(e.getMessage(), e);
    }
    if (registry.isClosed()) {
      throw LaunchFailures.startFailed("this worker is stopping; no agent was started for session " + sessionId, null);
    }
    SessionIdentity identity =
        transactions.inTransaction("read the identity of session " + sessionId, h -> identities.read(h, sessionId));
    registry.stop(sessionId);
    // An agent of the session that another worker of this host left (stopped, cut off) must be gone
    // before ours starts: that worker cannot stop its child while it is stopped.
    earlierAgents.stopEarlierAgents(sessionId);

    RunningAgent agent = start(request, profile);
    try {
      SessionHandshake.Served served =
          handshake.openSession(agent, identity, request.workspace().toAbsolutePath().normalize(), request.fence());
      takeOver(agent, request);
      log.info("session {}: agent {} {} serves provider session {} ({}, {} messages replayed)",
          sessionId, served.agent().name(), served.agent().version(), agent.providerSessionId(),
          served.method().wireName(), served.replayedMessages());
      return new LaunchResult(agent.providerSessionId(), served.method(), agent.process.pid(), agent.executionId,
          served.agent().name(), served.agent().version(), served.replayedMessages());
    } catch (AgentLaunchException e) {
      throw e;
    } catch (RuntimeException e) {
      failures.abort(agent, "launch failed: " + e.getMessage());
      throw e;
    }
  }

  /** Starts the child and records it as the session's current execution. */
  private RunningAgent start(LaunchRequest request, AgentProfile profile) {
    String sessionId = request.sessionId();
    String executionId = UUID.randomUUID().toString();
    Path workspace = request.workspace().toAbsolutePath().normalize();
    // The launch's span goes to the child: a credential redemption its git asks for joins the trace.
    Map<String, String> extraEnv = new HashMap<>(Spans.traceparentOfCurrent());
    extraEnv.putAll(request.extraEnv());
    Map<String, String> env = AgentEnvironment.build(settings.inheritedEnvironment(), profile.env(), extraEnv);
    List<String> argv = settings.commands().argv(profile);
    AgentProcess process;
    try {
      process = AgentProcess.start(sessionId, argv, profile.workingDirectoryFor(workspace), env,
          settings.inheritedEnvironment().get("PATH"), settings.timeouts().spawn());
    } catch (IOException | TimeoutException e) {
      AgentLaunchException failure = LaunchFailures.startFailed(
          "could not start agent '" + profile.agentId() + "' " + argv + " in "
              + profile.workingDirectoryFor(workspace) + ": " + e.getMessage(), e);
      executions.startFailed(sessionId, executionId, failure.getMessage());
      throw failure;
    }
    // Known as the session's agent at once: its git may redeem the lease before the row is written.
    registry.launchStarted(sessionId, process);
    try {
      executions.starting(sessionId, executionId, process.pid(),
          process.process().toHandle().info().startInstant().orElse(null));
    } catch (RuntimeException e) {
      process.kill();
      throw e;
    }
    log.info("session {}: started agent '{}' pid {} execution {}", sessionId, profile.agentId(), process.pid(), executionId);
    return new RunningAgent(sessionId, executionId, process,
        AgentEnvironment.secretValues(profile.env(), request.extraEnv()),
        new ClientRequests(sessionId, workspace, settings.permissions(), json), json);
  }

  /** Makes the agent the session's running one, unless the launch lost the session meanwhile. */
  private void takeOver(RunningAgent agent, LaunchRequest request) {
    if (!executions.running(agent.sessionId, agent.executionId, request.fence())) {
      Optional<String> changed = request.fence().isNone() ? Optional.empty()
          : executions.leftStartingByAnotherWriter(agent.sessionId);
      if (changed.isPresent()) {
        failures.abort(agent, "session became " + changed.get() + " during the launch");
        throw new SessionLeftStartingException(agent.sessionId, changed.get());
      }
      // The resume gave up on this launch while it ran (e.g. this worker stalled past the
      // heartbeat timeout and the resume was compensated elsewhere), or a later launch serves the
      // session now: this late result must not take the session over.
      String why = "the resume that asked for it gave up on it or a later launch took its place";
      throw failures.abandoned(agent, why, why);
    }
    if (!registry.register(agent)) {
      // The worker began stopping during the handshake: nobody would ever stop this agent.
      throw failures.abandoned(agent, "the worker stopped during the launch", "this worker stopped while it launched the agent");
    }
  }
}
