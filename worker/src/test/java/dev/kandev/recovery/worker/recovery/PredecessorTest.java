package dev.kandev.recovery.worker.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PredecessorTest {
  @TempDir Path dir;

  @Test
  void aCleanStopLeavesNoPredecessorButOnlyForgetsItself() {
    Path file = dir.resolve("dev.pid");
    Predecessor.record(file, "dev-a", "host-1");

    Predecessor.forget(file, "dev-b");
    assertThat(Predecessor.read(file)).as("another process's entry stays").hasValueSatisfying(p ->
        assertThat(p.workerInstance()).isEqualTo("dev-a"));

    Predecessor.forget(file, "dev-a");
    assertThat(Predecessor.read(file)).isEmpty();
    assertThat(file).doesNotExist();
  }
}
