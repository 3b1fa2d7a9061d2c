package dev.kandev.recovery.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged {@code kandev-recovery.jar} running as a real process ({@code dev}, {@code worker}
 * or a CLI command), its output in a file of its own.
 */
final class KandevProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path output;

  private KandevProcess(String name, Process process, Path output) {
    this.name = name;
    this.process = process;
    this.output = output;
  }

  static KandevProcess start(String name, Map<String, String> env, Path logDir, String... args) {
    return start(name, env, logDir, jar(), args);
  }

  /** The same with another copy of the jar (its {@code lib/} beside it). */
  static KandevProcess start(String name, Map<String, String> env, Path logDir, Path jar, String... args) {
    List<String> command = new ArrayList<>(List.of(javaBinary(), "-jar", jar.toString()));
    command.addAll(List.of(args));
    Path output = logDir.resolve(name + ".log");
    try {
      Files.createDirectories(logDir);
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      builder.environment().remove("TEMPORAL_ADDRESS");
      builder.environment().putAll(env);
      return new KandevProcess(name, builder.start(), output);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs a CLI command to its end and returns its exit code and output. */
  static Result run(Map<String, String> env, Path logDir, Duration within, String... args) {
    String name = "cli-" + System.nanoTime();
    try (KandevProcess cli = start(name, env, logDir, args)) {
      int code = cli.awaitExit(within);
      return new Result(code, cli.output());
    }
  }

  record Result(int exitCode, String output) {}

  static Path jar() {
    String jar = System.getProperty("kandev.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("the packaged jar is missing (" + jar + "): run these tests with mvn verify");
    }
    return Path.of(jar);
  }

  private static String javaBinary() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  long pid() {
    return process.pid();
  }

  String name() {
    return name;
  }

  String output() {
    try {
      return Files.readString(output, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until the output contains {@code text}; fails with the output if the process ends first. */
  KandevProcess awaitOutput(String text, Duration within) {
    Await.until(() -> {
      if (output().contains(text)) {
        return true;
      }
      if (!process.isAlive()) {
        throw new AssertionError(name + " ended (code " + process.exitValue() + ") before printing '" + text + "':\n" + output());
      }
      return false;
    }, within, name + " to print '" + text + "'");
    return this;
  }

  /** {@code kill -9}: nothing of the process runs its cleanup. */
  void kill() {
    process.destroyForcibly();
    waitFor(process, Duration.ofSeconds(30));
  }

  /** {@code kill -TERM}, as a service manager stops it; waits for the end. */
  int terminate(Duration within) {
    process.destroy();
    return awaitExit(within);
  }

  int awaitExit(Duration within) {
    if (!waitFor(process, within)) {
      process.destroyForcibly();
      throw new AssertionError(name + " did not end within " + within + ":\n" + output());
    }
    return process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  private static boolean waitFor(Process process, Duration within) {
    try {
      return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      waitFor(process, Duration.ofSeconds(30));
    }
  }
}
