package dev.kandev.recovery.workflows.runtime;

import java.util.List;

/**
 * Answer of the {@code progress} query: the job so far. {@code lines} only ever grows; {@code
 * repaired} and {@code repair} as in {@link RuntimeUpdateResult}.
 */
public record RuntimeUpdateProgress(
    String jobId,
    String agentId,
    RuntimeJobStatus status,
    int attempts,
    boolean repaired,
    RepairResult repair,
    List<String> lines,
    String error) {
  public RuntimeUpdateProgress {
    repair = repair == null ? RepairResult.NOT_RUN : repair;
    lines = List.copyOf(lines);
  }

  public boolean done() {
    return status.terminal();
  }
}
