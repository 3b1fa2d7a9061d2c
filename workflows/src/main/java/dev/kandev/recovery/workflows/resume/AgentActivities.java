package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.Fence;
import io.temporal.activity.ActivityInterface;
import java.util.List;

/** The agent process host of this worker. */
@ActivityInterface
public interface AgentActivities {
  /**
   * Launches the session's agent with the leases' credential environment, runs ACP {@code
   * initialize} and loads the stored session (or creates one if there is none). Failure types are
   * the names of {@code AgentFailureClass}; none of them touches the stored token.
   */
  LaunchOutcome launchAgent(String sessionId, List<String> leaseIds, Fence fence);

  /**
   * Compensation: stops the session's agent if this host runs one, and withdraws the launch this
   * resume made on another worker (which then can no longer complete it and stops its agent).
   * Idempotent.
   */
  void stopAgent(String sessionId);
}
