package dev.kandev.recovery.workflows.runtime;

import java.util.List;

/** Answer of the {@code progress} query: the job so far. {@code lines} only ever grows. */
public record RuntimeUpdateProgress(
    String jobId,
    String agentId,
    RuntimeJobStatus status,
    int attempts,
    boolean repaired,
    List<String> lines,
    String error) {
  public RuntimeUpdateProgress {
    lines = List.copyOf(lines);
  }

  public boolean done() {
    return status.terminal();
  }
}
