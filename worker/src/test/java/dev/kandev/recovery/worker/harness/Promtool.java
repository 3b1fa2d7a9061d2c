package dev.kandev.recovery.worker.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus' {@code promtool}, which scripts/setup unpacks from Debian's prometheus package into {@code
 * .tools/promtool} (or {@code KANDEV_PROMTOOL}): the alert rules are checked with the real thing, never skipped.
 */
public final class Promtool {
  public static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  public static final Path RULES = REPOSITORY.resolve("deploy/prometheus/kandev-alerts.yml");
  private static final Path INSTALLED = REPOSITORY.resolve(".tools/promtool/promtool");

  private Promtool() {}

  public static Path binary() {
    Path path = Optional.ofNullable(System.getenv("KANDEV_PROMTOOL")).filter(s -> !s.isBlank()).map(Path::of)
        .orElse(INSTALLED);
    if (!Files.isExecutable(path)) {
      throw new AssertionError("this test checks the alert rules with promtool and found none at " + path
          + ": run scripts/setup (it unpacks promtool from Debian's prometheus package into .tools/promtool),"
          + " or set KANDEV_PROMTOOL");
    }
    return path;
  }

  public record Result(int exitCode, String output) {}

  /** Runs {@code promtool args…} and returns its exit code and its output (stdout and stderr). */
  public static Result run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(binary().toString()));
    command.addAll(List.of(args));
    Path output = Files.createTempFile("promtool", ".out");
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
      if (!process.waitFor(2, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError("promtool " + String.join(" ", args) + " did not end within 2 minutes");
      }
      return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
