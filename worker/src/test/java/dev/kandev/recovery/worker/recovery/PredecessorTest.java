package dev.kandev.recovery.worker.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
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

  @Test
  void aLiveProcessStaysAliveWhenTheWallClockStepsAndAReusedPidDoesNot() throws Exception {
    Path file = dir.resolve("worker.pid");
    Predecessor.record(file, "w-1", "host-1");
    Predecessor self = Predecessor.read(file).orElseThrow();
    assertThat(self.isAlive()).isTrue();
    assertThat(self.startTicks()).as("read from /proc on Linux").isPositive();

    // The wall clock stepped by 2 s since it recorded itself (NTP, a VM restored): the same process.
    assertThat(rewritten(file, self.startedAtMillis() + 2_000, self.startTicks()).isAlive()).isTrue();
    // The same pid, started at another moment: another process.
    assertThat(rewritten(file, self.startedAtMillis(), self.startTicks() + 1).isAlive()).isFalse();
  }

  private static Predecessor rewritten(Path file, long startedAtMillis, long startTicks) throws Exception {
    Predecessor p = Predecessor.read(file).orElseThrow();
    Files.writeString(file, "pid=" + p.pid() + "\nstartedAtMillis=" + startedAtMillis + "\nstartTicks=" + startTicks
        + "\nworkerInstance=" + p.workerInstance() + "\nhost=" + p.host() + "\n");
    return Predecessor.read(file).orElseThrow();
  }
}
