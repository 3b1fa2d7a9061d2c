package dev.kandev.recovery.workflows.client;

import dev.kandev.recovery.workflows.resume.ResumeMode;

/** A resume of the session with the other mode is already running; the request was not started. */
public final class ResumeConflictException extends RuntimeException {
  public ResumeConflictException(String sessionId, ResumeMode running, ResumeMode requested, String runId) {
    super("session " + sessionId + " is already being resumed with mode " + running + " (run " + runId
        + "); wait for it to finish before asking for " + requested);
  }
}
