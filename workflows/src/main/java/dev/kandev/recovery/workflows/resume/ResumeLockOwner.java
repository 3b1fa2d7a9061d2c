package dev.kandev.recovery.workflows.resume;

/**
 * Who holds a session's resume lock: the resume's run, as {@code <workflowId>/<runId>}. The
 * workflow takes the lock under this name, and its activities recognise their own resume by it.
 */
public final class ResumeLockOwner {
  private ResumeLockOwner() {}

  public static String of(String workflowId, String runId) {
    return workflowId + "/" + runId;
  }
}
