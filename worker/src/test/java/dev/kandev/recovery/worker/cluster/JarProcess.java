package dev.kandev.recovery.worker.cluster;

import dev.kandev.recovery.activities.testing.Await;
import java.io.File;
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

/** The packaged {@code kandev-recovery.jar} as a process ({@code worker} or a CLI command), stdout and stderr in files of their own. */
final class JarProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path stdout;
  private final Path stderr;

  private JarProcess(String name, Process process, Path stdout, Path stderr) {
    this.name = name;
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
  }

  static JarProcess start(String name, Map<String, String> env, Path logDir, String... args) {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-jar", jar().toString()));
    command.addAll(List.of(args));
    try {
      Files.createDirectories(logDir);
      Path out = logDir.resolve(name + ".out");
      Path err = logDir.resolve(name + ".err");
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
          .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      builder.environment().remove("TEMPORAL_ADDRESS");
      builder.environment().putAll(env);
      return new JarProcess(name, builder.start(), out, err);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A CLI command run to its end. */
  static Result run(String name, Map<String, String> env, Path logDir, Duration within, String... args) {
    try (JarProcess cli = start(name, env, logDir, args)) {
      int code = cli.awaitExit(within);
      return new Result(code, cli.stdout(), cli.stderr());
    }
  }

  record Result(int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }
  }

  static Path jar() {
    String jar = System.getProperty("kandev.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("the packaged jar is missing (" + jar + "): run these tests with mvn verify");
    }
    return Path.of(jar);
  }

  String stdout() {
    return read(stdout);
  }

  String stderr() {
    return read(stderr);
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  JarProcess awaitOutput(String text, Duration within) {
    Await.until(() -> {
      if (stdout().contains(text) || stderr().contains(text)) {
        return true;
      }
      if (!process.isAlive()) {
        throw new AssertionError(name + " ended (code " + process.exitValue() + ") before printing '" + text + "':\n"
            + stdout() + stderr());
      }
      return false;
    }, within, name + " to print '" + text + "'");
    return this;
  }

  int awaitExit(Duration within) {
    try {
      if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(name + " did not end within " + within + ":\n" + stdout() + stderr());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    return process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM, as a service manager stops it; waits for the end. */
  int terminate(Duration within) {
    process.destroy();
    return awaitExit(within);
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
