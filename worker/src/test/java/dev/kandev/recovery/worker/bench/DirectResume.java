package dev.kandev.recovery.worker.bench;

import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.CredentialActivities;
import dev.kandev.recovery.workflows.resume.CredentialLease;
import dev.kandev.recovery.workflows.resume.LaunchOutcome;
import dev.kandev.recovery.workflows.resume.ResumeContext;
import dev.kandev.recovery.workflows.resume.ResumeLockActivities;
import dev.kandev.recovery.workflows.resume.ResumeLockOwner;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.SessionActivities;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The happy path of the resume saga without Temporal: the worker's own activity objects ({@link
 * SagaSteps}) called in the workflow's order — lock, context, STARTING, lease, snapshot, launch,
 * settle, unlock. The store and broker steps are plain method calls; the launch runs in a {@link
 * io.temporal.testing.TestActivityEnvironment}, only a payload round trip more than a method call.
 * Calling the agent host directly instead would skip the launch activity's own work (binding the
 * host, minting tokens, the heartbeat loop) and so flatter the direct path.
 */
public final class DirectResume implements AutoCloseable {
  private final SagaSteps saga;
  private final ResumeLockActivities locks;
  private final SessionActivities sessions;
  private final CredentialActivities credentials;
  private final AtomicLong runs = new AtomicLong();
  /** Per step, when {@link #recordSteps} is on: the call's wall time. */
  private final Map<String, Latencies> steps = new LinkedHashMap<>();
  private volatile boolean recordSteps;

  public DirectResume(Components components, int lanes) {
    this.saga = new SagaSteps(components, lanes);
    this.locks = saga.locks;
    this.sessions = saga.sessions;
    this.credentials = saga.credentials;
  }

  /** Resumes a FAILED session with a stored token on {@code lane}; returns the launch's outcome. */
  public LaunchOutcome resume(String sessionId, int lane) {
    String owner = ResumeLockOwner.of("direct-" + sessionId, "run-" + runs.incrementAndGet());
    Fence fence = step("AcquireResumeLock", () -> locks.acquireResumeLock(sessionId, owner));
    ResumeContext context = step("ReadResumeContext", () -> sessions.readResumeContext(sessionId, ResumeMode.RESUME, fence));
    step("MarkStarting", () -> {
      sessions.markStarting(sessionId, context.priorState(), "benchmark", fence);
      return null;
    });
    CredentialLease lease = step("IssueCredentialLeaseForAttempt", () -> credentials.issueCredentialLeaseForAttempt(sessionId, fence));
    step("PersistCredentialSnapshot", () -> {
      sessions.persistCredentialSnapshot(sessionId, lease.snapshot(), fence);
      return null;
    });
    LaunchOutcome launched = step("LaunchAgent", () -> saga.launcher(lane).launchAgent(sessionId, lease.leaseIds(), fence));
    SessionState state = step("SettleSession", () -> sessions.settleSession(sessionId, fence));
    step("ReleaseResumeLock", () -> {
      locks.releaseResumeLock(sessionId, owner);
      return null;
    });
    if (!launched.loaded() || state != SessionState.WAITING_FOR_INPUT) {
      throw new IllegalStateException(sessionId + ": expected a loaded agent and WAITING_FOR_INPUT, got " + launched + ", " + state);
    }
    return launched;
  }

  public void recordSteps(boolean on) {
    recordSteps = on;
  }

  /** The recorded steps in the saga's order. */
  public synchronized Map<String, Latencies> steps() {
    return new LinkedHashMap<>(steps);
  }

  private <T> T step(String name, Supplier<T> call) {
    long begin = System.nanoTime();
    T result = call.get();
    if (recordSteps) {
      synchronized (this) {
        steps.computeIfAbsent(name, n -> new Latencies()).add(System.nanoTime() - begin);
      }
    }
    return result;
  }

  @Override
  public void close() {
    saga.close();
  }
}
