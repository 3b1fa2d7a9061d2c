package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.Fence;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/**
 * The agent host's record of its agent executions: which host and worker instance owns the agent,
 * its pid, status and execution id. It never writes the resume token (only {@link
 * SessionIdentityStore} does). Every method runs on the caller's transaction {@link Handle}.
 */
public interface ExecutorsRunningStore {
  Set<String> EXIT_STATUSES = Set.of("failed", "stopped", "completed");
  /** The statuses of an execution that claims a live agent process. */
  List<String> LIVE = List.of("starting", "running", "ready");

  /** A new execution of the session's agent has a process; it becomes the session's current execution. */
  void recordStarting(Handle h, String sessionId, String executionId, String host, String workerInstance, long pid);

  /** A new execution whose process could not be started: current, failed, without a pid. */
  void recordStartFailure(
      Handle h, String sessionId, String executionId, String host, String workerInstance, String errorMessage);

  /**
   * The execution completed its handshake and serves the session — if it still is the current,
   * starting execution and, for a launch under a resume lock ({@code fence} not none), the session
   * is still STARTING under that lock. False otherwise; the caller then stops the agent.
   */
  boolean markRunning(Handle h, String sessionId, String executionId, Fence fence);

  /**
   * A resume gave up on its launch: the execution it started while {@code lockOwner} held the
   * session's resume lock no longer claims the session ({@code failed} with {@code reason}).
   *
   * @return the withdrawn execution, if there was one
   */
  Optional<ExecutorRecord> withdrawLaunch(Handle h, String sessionId, String lockOwner, String reason);

  /**
   * The execution's process is gone ({@code failed}, {@code stopped} or {@code completed}): the pid
   * is cleared. False if another execution has replaced it meanwhile.
   */
  boolean markExited(Handle h, String sessionId, String executionId, String status, String errorMessage);

  /**
   * The session's agent as recorded now, with whether its worker instance is alive; the record is
   * locked until the transaction ends.
   */
  Optional<RecordedAgent> lockRecordedAgent(Handle h, String sessionId);

  Optional<ExecutorRecord> find(Handle h, String sessionId);

  /**
   * The worker instance, other than {@code workerInstance}, that claims a live agent of the session
   * and is itself alive; empty if none.
   */
  Optional<String> liveOwnerOtherThan(Handle h, String sessionId, String workerInstance);

  /**
   * The sessions that lost their agent with a gone worker instance on {@code host} (not {@code
   * workerInstance}): active — WAITING_FOR_INPUT without an error, or RUNNING — with a stored
   * provider session. Restart recovery resumes them.
   */
  List<String> sessionsLostOn(Handle h, String host, String workerInstance);

  /**
   * The agents that went with a gone worker instance on {@code host} and that restart recovery does
   * not resume: they stop claiming a live process. Returns their session ids.
   */
  List<String> markLostWithGoneWorkers(Handle h, String host, String workerInstance);

  /**
   * The session's state if another writer moved it out of {@code STARTING} (our last published
   * transition of it entered {@code STARTING}, but it is in another state now); empty otherwise, also
   * when our own compensation restored it.
   */
  Optional<String> leftStartingByAnotherWriter(Handle h, String sessionId);

  /**
   * An agent of someone else's that Kandev's own executor row of the session shows live (the
   * {@code kandev} layout: {@code executors_running} with a live status and Kandev's execution), as
   * a line for a message; empty if none (always, on the mirror, where the row is ours).
   */
  default Optional<String> kandevAgentOf(Handle h, String sessionId) {
    return Optional.empty();
  }

  /**
   * Shows the live agents of {@code workerInstance} as live again where Kandev reads them: the
   * presence beat calls it. Nothing to do on the mirror, where the rows are ours alone.
   */
  default void showLive(Handle h, String workerInstance) {}

  /** An agent execution's record and whether the worker instance it names still beats. */
  record RecordedAgent(ExecutorRecord executor, boolean instanceAlive) {
    /** Whether the record claims a live agent process. */
    public boolean claimsLive() {
      return LIVE.contains(executor.status());
    }
  }
}
