package dev.kandev.recovery.workflows.runtime;

import com.fasterxml.jackson.annotation.JsonValue;

/** Phases of a runtime update job, as stored in {@code runtime_update_jobs.status} (lowercase). */
public enum RuntimeJobStatus {
  QUEUED, UPDATING, REPAIRING, RETRYING, PROBING, SUCCEEDED, FAILED;

  @JsonValue
  public String wire() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  public boolean terminal() {
    return this == SUCCEEDED || this == FAILED;
  }
}
