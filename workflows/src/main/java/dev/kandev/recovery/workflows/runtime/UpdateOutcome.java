package dev.kandev.recovery.workflows.runtime;

import dev.kandev.recovery.workflows.FailureType;
import java.util.List;

/**
 * What one update command run did. Returned on success; on failure it is the details of the
 * {@link FailureType#RUNTIME_UPDATE_FAILED} failure. {@code outputTail} is bounded.
 */
public record UpdateOutcome(List<String> command, int exitCode, boolean timedOut, long durationMillis, List<String> outputTail) {
  public UpdateOutcome {
    command = List.copyOf(command);
    outputTail = List.copyOf(outputTail);
  }
}
