package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.Fence;

/** A write made under a resume lock that a newer holder has since taken over. */
public class StaleFenceException extends IllegalStateException {
  public StaleFenceException(String sessionId, Fence fence) {
    super("resume lock of session " + sessionId + " is no longer held with fencing token " + fence.token());
  }
}
