package dev.kandev.recovery.workflows.retention;

/** The tables that only grow, which retention prunes (docs/operations.md "Retention" says what each keeps). */
public enum RetentionTable {
  SESSION_EVENTS,
  SESSION_MESSAGES,
  EXECUTORS_RUNNING,
  RUNTIME_UPDATE_JOBS
}
