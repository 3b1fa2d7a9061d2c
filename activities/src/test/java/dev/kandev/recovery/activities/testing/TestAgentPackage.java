package dev.kandev.recovery.activities.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The project's ACP test agent ({@code test-agent/}) packed by {@code npm pack} into a tarball. */
public final class TestAgentPackage {
  public static final String NAME = "kandev-test-agent";
  public static final String VERSION = "1.0.0";

  private TestAgentPackage() {}

  /** The {@code test-agent/} directory at the top of the repository. */
  public static Path sourceDir() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("test-agent/package.json"))) {
        return dir.resolve("test-agent");
      }
    }
    throw new IllegalStateException("test-agent/package.json not found above " + Path.of("").toAbsolutePath());
  }

  /** Runs {@code npm pack} (direct argv) into {@code outDir}; returns the tarball's bytes. */
  public static byte[] pack(Path outDir) throws IOException, InterruptedException {
    Path cache = Files.createDirectories(outDir.resolve("pack-cache"));
    ProcessBuilder builder = new ProcessBuilder(
        List.of("npm", "pack", sourceDir().toString(), "--pack-destination", outDir.toString(), "--silent"))
        .redirectErrorStream(true)
        .redirectOutput(outDir.resolve("npm-pack.log").toFile());
    builder.environment().clear();
    builder.environment().putAll(Map.of(
        "PATH", System.getenv("PATH"), "HOME", outDir.toString(), "npm_config_cache", cache.toString()));
    Process process = builder.start();
    if (!process.waitFor(Duration.ofSeconds(60).toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IllegalStateException("npm pack failed: " + Files.readString(outDir.resolve("npm-pack.log")));
    }
    return Files.readAllBytes(outDir.resolve(NAME + "-" + VERSION + ".tgz"));
  }
}
