package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.runtime.RuntimeJobStatus;
import java.time.Instant;
import java.util.List;

/** A row of {@code runtime_update_jobs}. {@code finishedAt} is null until the job is terminal. */
public record RuntimeJobRecord(
    String id,
    String workflowId,
    String agentId,
    String packageSpec,
    String requestedBy,
    RuntimeJobStatus status,
    int attempts,
    boolean repaired,
    List<String> progress,
    String error,
    Instant startedAt,
    Instant finishedAt) {
  public RuntimeJobRecord {
    progress = List.copyOf(progress);
  }
}
