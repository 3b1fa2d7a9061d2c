package dev.kandev.recovery.worker.cluster;

import dev.kandev.recovery.worker.harness.KandevProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The packaged {@code kandev-recovery.jar} as a process of the cluster tests ({@code worker} or a CLI
 * command): a {@link KandevProcess} with stdout and stderr kept apart, and a CLI's result as both.
 */
final class JarProcess implements AutoCloseable {
  private final KandevProcess process;

  private JarProcess(KandevProcess process) {
    this.process = process;
  }

  static JarProcess start(String name, Map<String, String> env, Path logDir, String... args) {
    return new JarProcess(KandevProcess.startWithStderrApart(name, env, logDir, args));
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

  String stdout() {
    return process.stdout();
  }

  String stderr() {
    return process.stderr();
  }

  JarProcess awaitOutput(String text, Duration within) {
    process.awaitOutput(text, within);
    return this;
  }

  int awaitExit(Duration within) {
    return process.awaitExit(within);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM, as a service manager stops it; waits for the end. */
  int terminate(Duration within) {
    return process.terminate(within);
  }

  @Override
  public void close() {
    process.close();
  }
}
