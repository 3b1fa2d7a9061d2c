package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;

/** What one resume attempt learned as it went; the compensations and the failure read it. */
final class ResumeAttempt {
  Fence fence;
  HostAgents agents;
  boolean launchNeverStarted;
  ResumeContext context;
  String errorMessage = "";
  SessionState restoredState;
  boolean identityCleared;
  boolean settled;

  /** Said first in the failure of a Start fresh that cleared a stored conversation: it is gone for good. */
  String lostConversation() {
    return identityCleared && !context.resumeToken().isEmpty()
        ? "Start fresh cleared the stored conversation (provider session " + context.resumeToken()
            + "), which can no longer be resumed; "
        : "";
  }

  /** Resume needs a stored provider session; once cleared (or if never made) only Start fresh is left. */
  boolean hasToken() {
    return context != null && !context.resumeToken().isEmpty() && !identityCleared;
  }

  /** Nothing was written: the resume failed before it read its context. */
  boolean changedNothing() {
    return context == null;
  }
}
