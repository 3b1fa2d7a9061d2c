package dev.kandev.recovery.workflows.runtime;

import java.util.List;

/**
 * The whole job record as the workflow knows it; saving it is an idempotent upsert. {@code
 * repaired}: the repair removed the package's tree.
 */
public record RuntimeJobSnapshot(
    String jobId,
    String workflowId,
    String agentId,
    String packageSpec,
    String requestedBy,
    RuntimeJobStatus status,
    int attempts,
    boolean repaired,
    List<String> progress,
    String error) {
  public RuntimeJobSnapshot {
    progress = List.copyOf(progress);
    error = error == null ? "" : error;
  }
}
