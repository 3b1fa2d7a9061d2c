package dev.kandev.recovery.workflows.runtime;

/** Outcome of a runtime update job. */
public enum RuntimeUpdateStatus {
  SUCCEEDED, FAILED
}
