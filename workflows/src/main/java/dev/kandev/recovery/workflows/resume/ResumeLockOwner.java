package dev.kandev.recovery.workflows.resume;

import java.util.Optional;

/**
 * Who holds a session's resume lock: the resume's run, as {@code <workflowId>/<runId>}. The
 * workflow takes the lock under this name, and its activities recognise their own resume by it.
 */
public final class ResumeLockOwner {
  private ResumeLockOwner() {}

  public static String of(String workflowId, String runId) {
    return workflowId + "/" + runId;
  }

  /** The run an owner names; empty for an owner not written by {@link #of} (tests, tools). */
  public static Optional<Run> run(String owner) {
    int slash = owner == null ? -1 : owner.lastIndexOf('/');
    if (slash <= 0 || slash == owner.length() - 1) {
      return Optional.empty();
    }
    return Optional.of(new Run(owner.substring(0, slash), owner.substring(slash + 1)));
  }

  /** A workflow run: the workflow id and the run id. */
  public record Run(String workflowId, String runId) {}
}
