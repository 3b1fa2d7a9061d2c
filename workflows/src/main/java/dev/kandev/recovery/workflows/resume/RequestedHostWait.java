package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.HostWaitBounds;

/** How long a resume's launch waits for a worker of the session's host (see {@link HostWaitBounds}). */
public enum RequestedHostWait {
  /** The workers' setting {@code KANDEV_HOST_WAIT_SECONDS} (default {@link HostWaitBounds#DEFAULT}). */
  CONFIGURED,
  /**
   * {@link HostWaitBounds#RESTART_RECOVERY}: for the resumes a worker's restart recovery starts for the
   * sessions its host lost. That worker is the host's own and alive; the host may be busy with many.
   */
  RESTART_RECOVERY
}
