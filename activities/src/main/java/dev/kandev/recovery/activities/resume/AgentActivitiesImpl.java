package dev.kandev.recovery.activities.resume;

import dev.kandev.recovery.activities.agent.AgentHost;
import dev.kandev.recovery.activities.agent.AgentLaunchException;
import dev.kandev.recovery.activities.agent.SessionLeftStartingException;
import dev.kandev.recovery.activities.agent.LaunchRequest;
import dev.kandev.recovery.activities.agent.LaunchResult;
import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.CredentialFailures;
import dev.kandev.recovery.activities.credentials.IssuedToken;
import dev.kandev.recovery.activities.credentials.broker.CredentialBroker;
import dev.kandev.recovery.activities.credentials.redemption.GitCredentialEnvironment;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.SessionRecord;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.resume.AgentActivities;
import dev.kandev.recovery.workflows.resume.LaunchHeartbeat;
import dev.kandev.recovery.workflows.resume.LaunchOutcome;
import dev.kandev.recovery.workflows.resume.ResumeLockOwner;
import io.opentelemetry.context.Context;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.client.ActivityCompletionException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The launch step: mints the lease tokens (the only place a secret exists), hands them to the
 * child's environment, and launches the agent on this worker's host while heartbeating, so a dead
 * worker or a cancelled resume is noticed and the half-started agent stopped. Its compensation
 * stops the agent on whichever worker runs it, and withdraws the launch from the worker that made it.
 */
public final class AgentActivitiesImpl implements AgentActivities {
  private static final Logger log = LoggerFactory.getLogger(AgentActivitiesImpl.class);

  private final AgentHost host;
  private final Transactions transactions;
  private final SessionStore sessions;
  private final ExecutorsRunningStore executors;
  private final CredentialBroker broker;
  private final GitCredentialEnvironment credentialEnvironment;
  /** Where launches run while their activity heartbeats: threads of their own, never the common pool. */
  private final Executor launches;

  public AgentActivitiesImpl(
      AgentHost host,
      Transactions transactions,
      SessionStore sessions,
      ExecutorsRunningStore executors,
      CredentialBroker broker,
      GitCredentialEnvironment credentialEnvironment,
      Executor launches) {
    this.host = host;
    this.transactions = transactions;
    this.sessions = sessions;
    this.executors = executors;
    this.broker = broker;
    this.credentialEnvironment = credentialEnvironment;
    this.launches = launches;
  }

  @Override
  public LaunchOutcome launchAgent(String sessionId, List<String> leaseIds, Fence fence) {
    SessionRecord session = transactions.inTransaction("bind session " + sessionId + " to host " + host.host(), h -> {
      SessionRecord read = sessions.get(h, sessionId);
      bindToThisHost(h, sessionId);
      return read;
    });
    List<IssuedToken> tokens = mintTokens(leaseIds);
    Map<String, String> env = tokens.isEmpty() ? Map.of() : credentialEnvironment.forTokens(tokens);
    LaunchRequest request = new LaunchRequest(
        sessionId, session.agentId(), Path.of(session.workspacePath().isEmpty() ? "." : session.workspacePath()),
        env, fence);
    // The launch's log lines carry the activity's MDC (workflow, run, session, activity type), its
    // spans the activity's span as their parent.
    Map<String, String> mdc = MDC.getCopyOfContextMap();
    CompletableFuture<LaunchResult> launch = CompletableFuture.supplyAsync(Context.current().wrapSupplier(() -> {
      if (mdc != null) {
        MDC.setContextMap(mdc);
      }
      try {
        return host.launch(request);
      } finally {
        MDC.clear();
      }
    }), launches);
    ActivityExecutionContext activity = Activity.getExecutionContext();
    try {
      LaunchResult result = awaitHeartbeating(launch, activity);
      countLaunch(activity, switch (result.method()) {
        case LOAD -> "loaded";
        case RESUME -> "resumed";
        case NEW -> "created";
      });
      return new LaunchOutcome(result.providerSessionId(), result.loaded(), result.pid(), result.agentName(),
          result.method().wireName());
    } catch (AgentLaunchException e) {
      countLaunch(activity, e.failureClass().type());
      throw e.failureClass().failureType().failure(redact(e.description(), tokens));
    } catch (SessionLeftStartingException e) {
      countLaunch(activity, FailureType.SESSION_STATE_SUPERSEDED.type());
      throw FailureType.SESSION_STATE_SUPERSEDED.failure(e.getMessage());
    } catch (ActivityCompletionException e) {
      // Cancelled, or the workflow no longer waits: the launch must not leave an agent behind.
      launch.whenComplete((r, t) -> host.stop(sessionId));
      host.stop(sessionId);
      throw e;
    }
  }

  /**
   * The session's agent runs where its workspace lives: a session not bound yet is bound to this
   * host; one bound to another host is never launched here (only a launch routed through the shared
   * queue, by a resume from before hosts had queues, can land here).
   */
  private void bindToThisHost(Handle h, String sessionId) {
    String bound = sessions.bindHost(h, sessionId, host.host());
    if (!bound.equals(host.host())) {
      throw FailureType.AGENT_HOST_UNAVAILABLE.failure("session " + sessionId + " belongs to host " + bound
          + ", and this worker runs on host " + host.host() + "; nothing was launched");
    }
  }

  /** {@code kandev_agent_launches{result}}: loaded, created, or the launch failure class. */
  private static void countLaunch(ActivityExecutionContext activity, String result) {
    activity.getMetricsScope().tagged(Map.of("result", result)).counter("kandev_agent_launches").inc(1);
  }

  /**
   * Stops the session's agent if this worker runs it (waiting for a launch of it still under way
   * here), then withdraws the launch this resume made on any other worker: that worker may be
   * stalled or cut off from Temporal, so the compensation cannot reach its process, but its launch
   * can no longer complete, its reaper stops the agent, and the user's next Resume is not refused.
   */
  @Override
  public void stopAgent(String sessionId) {
    host.stop(sessionId);
    ActivityInfo info = Activity.getExecutionContext().getInfo();
    String owner = ResumeLockOwner.of(info.getWorkflowId(), info.getRunId());
    String reason = "launch withdrawn by its resume's compensation (" + owner + "); the worker that launched it stops the agent";
    transactions.inTransaction("withdraw the launch of session " + sessionId,
            h -> executors.withdrawLaunch(h, sessionId, owner, reason))
        .ifPresent(withdrawn -> log.warn("session {}: withdrew the launch of execution {} on worker {} (pid {})",
            sessionId, withdrawn.agentExecutionId(), withdrawn.workerInstance(), withdrawn.pid()));
  }

  private List<IssuedToken> mintTokens(List<String> leaseIds) {
    try {
      return leaseIds.stream().map(broker::mintToken).toList();
    } catch (CredentialException e) {
      throw CredentialFailures.toApplicationFailure(e);
    }
  }

  /**
   * Waits for the launch, recording a heartbeat each {@link LaunchHeartbeat#CALL_EVERY} it is still
   * under way. Not one at its start: the SDK sends a first heartbeat at once, a server round trip and
   * a write that a launch done within the interval (most are) does not need — the heartbeat timeout
   * counts from the start anyway, and a cancellation requested meanwhile reaches the launch with its
   * first heartbeat, within that interval.
   */
  private static LaunchResult awaitHeartbeating(CompletableFuture<LaunchResult> launch, ActivityExecutionContext activity) {
    while (true) {
      try {
        return launch.get(LaunchHeartbeat.CALL_EVERY.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        activity.heartbeat(null); // still launching
      } catch (ExecutionException e) {
        if (e.getCause() instanceof RuntimeException runtime) {
          throw runtime;
        }
        throw new IllegalStateException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while launching", e);
      }
    }
  }

  /** An agent's stderr could echo its environment; no lease token leaves the worker in a failure. */
  static String redact(String message, Collection<IssuedToken> tokens) {
    String redacted = message;
    for (IssuedToken token : tokens) {
      redacted = redacted.replace(token.token(), "[redacted lease token]");
    }
    return redacted;
  }
}
