package dev.kandev.recovery.activities.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.acp.AcpHandshake;
import dev.kandev.recovery.activities.acp.AcpRemoteException;
import dev.kandev.recovery.activities.acp.AcpTimeouts;
import dev.kandev.recovery.activities.acp.AcpTransportClosedException;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.store.TranscriptMessage;
import dev.kandev.recovery.activities.store.TranscriptStore;
import dev.kandev.recovery.activities.tracing.Spans;
import io.opentelemetry.api.trace.Span;
import dev.kandev.recovery.workflows.model.AgentFailureClass;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a started agent to serve its session: {@code initialize}, then the stored token reattached
 * — with {@code session/resume} when the agent advertises it (no replay: the transcript already
 * holds the conversation), else {@code session/load} (its replay added to the transcript without
 * duplicates) — or, only when no token is stored, {@code session/new} with the new id persisted
 * under the launch's fence. A stored token is never replaced by a new session. Each failure is
 * classified, the same way for both ways of reattaching, and the child ended.
 */
final class SessionHandshake {
  private static final Logger log = LoggerFactory.getLogger(SessionHandshake.class);

  /** How the agent serves the session now. */
  record Served(AcpHandshake.AgentInfo agent, SessionMethod method, int replayedMessages) {}

  private final AcpTimeouts timeouts;
  private final Transactions transactions;
  private final SessionIdentityStore identities;
  private final TranscriptStore transcripts;
  private final LaunchFailures failures;
  private final ObjectMapper json;

  SessionHandshake(
      AcpTimeouts timeouts, Transactions transactions, SessionIdentityStore identities, TranscriptStore transcripts,
      LaunchFailures failures, ObjectMapper json) {
    this.timeouts = timeouts;
    this.transactions = transactions;
    this.identities = identities;
    this.transcripts = transcripts;
    this.failures = failures;
    this.json = json;
  }

  /**
   * @param identity the session's stored identity, read before the agent was started
   * @throws AgentLaunchException the handshake failed; the child is gone and the token untouched
   * @throws java.util.concurrent.CancellationException the launching thread was interrupted
   */
  Served openSession(RunningAgent agent, SessionIdentity identity, Path workspace, Fence fence) {
    Span span = Spans.start("acp.handshake");
    return Spans.within(span, () -> {
      Served served = serve(agent, identity, workspace, fence);
      span.setAttribute("kandev.agent.name", served.agent().name());
      span.setAttribute("kandev.agent.version", served.agent().version());
      return served;
    });
  }

  private Served serve(RunningAgent agent, SessionIdentity identity, Path workspace, Fence fence) {
    AcpHandshake.AgentInfo info = step("acp.initialize", () -> initialize(agent));
    if (identity.hasToken() && info.resumeSession()) {
      step("acp.session/resume", () -> resume(agent, identity.resumeToken(), workspace));
      return new Served(info, SessionMethod.RESUME, 0);
    }
    if (identity.hasToken()) {
      int replayed = step("acp.session/load", () -> load(agent, info, identity.resumeToken(), workspace));
      return new Served(info, SessionMethod.LOAD, replayed);
    }
    String newId = step("acp.session/new", () -> newSession(agent, workspace));
    transactions.run("store the new provider session of session " + agent.sessionId,
        h -> identities.replaceAfterNewSession(h, agent.sessionId, newId, fence));
    agent.serve(newId);
    return new Served(info, SessionMethod.NEW, 0);
  }

  /** One ACP request of the handshake, in its own span. */
  private static <T> T step(String name, Supplier<T> request) {
    return Spans.within(Spans.start(name), request);
  }

  private AcpHandshake.AgentInfo initialize(RunningAgent agent) {
    try {
      return AcpHandshake.initialize(agent.connection, agent.process.process(), true, timeouts.initialize(), json);
    } catch (AcpHandshake.Failure e) {
      AgentFailureClass failureClass = e.kind() == AcpHandshake.FailureKind.EXITED
          ? AgentFailureClass.AGENT_EXITED_BEFORE_INITIALIZE
          : AgentFailureClass.AGENT_INITIALIZE_FAILED;
      throw failures.failed(agent, failureClass, e.getMessage(), e.acpError(), e);
    } catch (InterruptedException e) {
      throw failures.interrupted(agent, "initialize");
    }
  }

  /**
   * {@code session/resume} of the stored token. Its failures are classified as those of {@code
   * session/load}: the contract's failure types name what happened to the stored session, not the
   * request that reattached it, so a refused resume is {@code AGENT_SESSION_LOAD_REJECTED}.
   */
  private Void resume(RunningAgent agent, String token, Path workspace) {
    agent.serve(token);
    try {
      agent.protocol.resumeSession(token, workspace, timeouts.sessionLoad());
    } catch (AcpRemoteException e) {
      throw failures.failed(agent, AgentFailureClass.AGENT_SESSION_LOAD_REJECTED,
          "the agent rejected session/resume of stored session " + token, e.error(), e);
    } catch (AcpTransportClosedException e) {
      throw failures.failed(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "the transport closed before session/resume of " + token + " completed", null, e);
    } catch (TimeoutException e) {
      throw failures.failed(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "session/resume of " + token + " was not answered within " + timeouts.sessionLoad(), null, e);
    } catch (InterruptedException e) {
      throw failures.interrupted(agent, "session/resume");
    }
    return null;
  }

  private int load(RunningAgent agent, AcpHandshake.AgentInfo info, String token, Path workspace) {
    if (!info.loadSession()) {
      throw failures.failed(agent, AgentFailureClass.AGENT_CANNOT_LOAD_SESSIONS,
          "a resume token is stored but agent " + info.name() + " " + info.version()
              + " does not declare the loadSession capability (nor sessionCapabilities.resume);"
              + " it is not replaced by a new session", null, null);
    }
    agent.serve(token);
    agent.collector.start();
    try {
      agent.protocol.loadSession(token, workspace, timeouts.sessionLoad());
    } catch (AcpRemoteException e) {
      agent.collector.finish();
      throw failures.failed(agent, AgentFailureClass.AGENT_SESSION_LOAD_REJECTED,
          "the agent rejected session/load of stored session " + token, e.error(), e);
    } catch (AcpTransportClosedException e) {
      agent.collector.finish();
      throw failures.failed(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "the transport closed before session/load of " + token + " completed", null, e);
    } catch (TimeoutException e) {
      agent.collector.finish();
      throw failures.failed(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "session/load of " + token + " was not answered within " + timeouts.sessionLoad(), null, e);
    } catch (InterruptedException e) {
      throw failures.interrupted(agent, "session/load");
    }
    List<TranscriptMessage> replayed = agent.collector.finish();
    int inserted = transactions.inTransaction("record the replayed transcript of session " + agent.sessionId,
        h -> transcripts.recordReplay(h, agent.sessionId, replayed));
    log.debug("session {}: replay of {} messages added {} to the transcript", agent.sessionId, replayed.size(), inserted);
    return replayed.size();
  }

  private String newSession(RunningAgent agent, Path workspace) {
    String id;
    try {
      id = agent.protocol.newSession(workspace, timeouts.sessionNew());
    } catch (AcpRemoteException e) {
      throw failures.failed(agent, AgentFailureClass.AGENT_SESSION_NEW_FAILED,
          "the agent answered session/new with an error", e.error(), e);
    } catch (AcpTransportClosedException e) {
      throw failures.failed(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "the transport closed before session/new completed", null, e);
    } catch (TimeoutException e) {
      throw failures.failed(agent, AgentFailureClass.AGENT_TRANSPORT_CLOSED,
          "session/new was not answered within " + timeouts.sessionNew(), null, e);
    } catch (InterruptedException e) {
      throw failures.interrupted(agent, "session/new");
    }
    if (id.isBlank()) {
      throw failures.failed(agent, AgentFailureClass.AGENT_SESSION_NEW_FAILED,
          "the agent answered session/new without a sessionId", null, null);
    }
    return id;
  }
}
