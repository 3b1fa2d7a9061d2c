package dev.kandev.recovery.activities.credentials.redemption;

import java.util.Optional;

/** The agent process this worker runs (or is launching) for a session, the root of the tree a caller must be in. */
@FunctionalInterface
public interface AgentProcesses {
  Optional<ProcessHandle> of(String sessionId);
}
