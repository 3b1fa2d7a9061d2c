package dev.kandev.recovery.worker.dev;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dev server's log in the state folder does not grow without bound over many starts. */
class DevTemporalServerLogTest {
  @TempDir Path stateDir;

  @Test
  void aLogPastTheLimitBecomesTheOneBeforeAndANewOneBegins() throws IOException {
    Path log = stateDir.resolve(DevTemporalServer.LOG_FILE);
    Files.writeString(stateDir.resolve(DevTemporalServer.LOG_FILE + ".1"), "older");
    Files.write(log, new byte[(int) DevTemporalServer.LOG_ROTATE_BYTES + 1]);

    DevTemporalServer.rotateIfLarge(log);

    assertThat(log).doesNotExist();
    assertThat(stateDir.resolve(DevTemporalServer.LOG_FILE + ".1")).hasSize(DevTemporalServer.LOG_ROTATE_BYTES + 1);
  }

  @Test
  void aLogWithinTheLimitAndNoLogAreLeftAsTheyAre() throws IOException {
    Path log = stateDir.resolve(DevTemporalServer.LOG_FILE);
    DevTemporalServer.rotateIfLarge(log);
    assertThat(stateDir).isEmptyDirectory();

    Files.writeString(log, "--- a start\n");
    DevTemporalServer.rotateIfLarge(log);

    assertThat(log).hasContent("--- a start");
    assertThat(stateDir.resolve(DevTemporalServer.LOG_FILE + ".1")).doesNotExist();
  }
}
