package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.testing.TestAgent;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Recorded histories for the replay tests of the workflows module. They are re-recorded only on
 * purpose, with {@code -Dkandev.recordHistories=true} (see docs/development.md, "Replay histories").
 */
public final class RecordedHistories {
  private RecordedHistories() {}

  public static void recordIfAsked(WorkflowExecutionHistory history, String name) {
    if (!Boolean.getBoolean("kandev.recordHistories")) {
      return;
    }
    Path repository = TestAgent.script().getParent().getParent().getParent();
    Path file = repository.resolve("workflows/src/test/resources/histories/" + name + ".json");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, history.toJson(true));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
