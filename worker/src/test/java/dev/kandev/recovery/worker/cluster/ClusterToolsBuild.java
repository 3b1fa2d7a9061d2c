package dev.kandev.recovery.worker.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * scripts/setup-cluster's build of the cluster's tools, which scripts/test runs in the background
 * beside the first tests: it holds {@code .tools/temporal-server.lock} (flock) while it builds.
 */
final class ClusterToolsBuild {
  private static final Path LOCK = LocalTemporalCluster.REPOSITORY.resolve(".tools/temporal-server.lock");
  private static final Path LOG = LocalTemporalCluster.REPOSITORY.resolve(".tools/setup-cluster.log");
  /** A cold build takes about 5 minutes of CPU; on 2 cores busy with the tests, several times that. */
  private static final Duration BUILD_WAIT = Duration.ofMinutes(25);

  private ClusterToolsBuild() {}

  /** Waits until no build holds the lock (at once when none runs or none ever ran). */
  static void awaitAny() {
    if (!Files.exists(LOCK)) {
      return;
    }
    try {
      // flock(1), as the script takes it: Java's own file locks are fcntl locks, which flock(2) does not see.
      Process flock = new ProcessBuilder("flock", "--shared", LOCK.toString(), "true")
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!flock.waitFor(BUILD_WAIT.toMinutes(), TimeUnit.MINUTES)) {
        flock.destroyForcibly();
        throw new AssertionError("scripts/setup-cluster still builds the cluster's tools after " + BUILD_WAIT.toMinutes()
            + " minutes (it holds " + LOCK + ")" + logTail());
      }
    } catch (IOException e) {
      throw new AssertionError("could not wait for scripts/setup-cluster's build with flock(1): " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while waiting for scripts/setup-cluster's build", e);
    }
  }

  /** The last lines of the background build's log, when there is one. */
  static String logTail() {
    try {
      if (!Files.exists(LOG)) {
        return "";
      }
      List<String> lines = Files.readAllLines(LOG);
      return "\n" + LOG + " ends:\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "";
    }
  }
}
