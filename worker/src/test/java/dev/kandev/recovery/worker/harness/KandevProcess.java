package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.workflows.ContractVersion;
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

/**
 * The packaged {@code kandev-recovery.jar} running as a real process ({@code dev}, {@code worker}
 * or a CLI command), its output in a file of its own.
 */
public final class KandevProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path output;
  /** Where stderr goes when it is kept apart from stdout; null: in {@link #output}. */
  private final Path stderr;

  private KandevProcess(String name, Process process, Path output, Path stderr) {
    this.name = name;
    this.process = process;
    this.output = output;
    this.stderr = stderr;
  }

  public static KandevProcess start(String name, Map<String, String> env, Path logDir, String... args) {
    return start(name, env, logDir, jar(), args);
  }

  /** The same with another copy of the jar (its {@code lib/} beside it). */
  public static KandevProcess start(String name, Map<String, String> env, Path logDir, Path jar, String... args) {
    return start(name, env, logDir, jar, false, false, args);
  }

  /** The same with its stderr (the log) kept apart from stdout ({@link #stdout()}, {@link #stderr()}). */
  public static KandevProcess startWithStderrApart(String name, Map<String, String> env, Path logDir, String... args) {
    return start(name, env, logDir, jar(), false, true, args);
  }

  /**
   * As a terminal runs a foreground command: in a process session and group of its own ({@code
   * setsid}; the group id is the pid), so {@link #signalGroup} reaches it as Ctrl-C would. Its
   * stderr (the log) is kept apart from stdout ({@link #stderr()}).
   */
  /**
   * Execs its arguments with SIGINT at its default: a process started in the background of a
   * non-interactive shell ({@code mvn verify &}, {@code nohup}) inherits SIGINT ignored, the JVM then
   * installs no handler for it, and the Ctrl-C a test sends to the session would do nothing.
   */
  private static final String DEFAULT_SIGINT =
      "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])";

  public static KandevProcess startInOwnSession(String name, Map<String, String> env, Path logDir, String... args) {
    return start(name, env, logDir, jar(), true, true, args);
  }

  private static KandevProcess start(String name, Map<String, String> env, Path logDir, Path jar, boolean ownSession,
      boolean stderrApart, String... args) {
    List<String> command = new ArrayList<>(ownSession ? List.of("python3", "-c", DEFAULT_SIGINT, "setsid") : List.of());
    command.add(javaBinary());
    command.addAll(jvmOptions());
    command.addAll(List.of("-jar", jar.toString()));
    command.addAll(List.of(args));
    Path output = logDir.resolve(name + ".log");
    Path stderr = stderrApart ? logDir.resolve(name + ".err") : null;
    try {
      Files.createDirectories(logDir);
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      if (stderr == null) {
        builder.redirectErrorStream(true);
      } else {
        builder.redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
      }
      builder.environment().remove("TEMPORAL_ADDRESS");
      builder.environment().putAll(env);
      return new KandevProcess(name, builder.start(), output, stderr);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs a CLI command to its end and returns its exit code and output. */
  public static Result run(Map<String, String> env, Path logDir, Duration within, String... args) {
    String name = "cli-" + System.nanoTime();
    try (KandevProcess cli = start(name, env, logDir, args)) {
      int code = cli.awaitExit(within);
      return new Result(code, cli.output());
    }
  }

  public record Result(int exitCode, String output) {}

  /**
   * The JVM options of every process a test starts: failsafe passes {@code kandev.it.jvmOptions}
   * (the pom's {@code it.jvmOptions}, empty in the benchmark profile, whose figures are the JIT's).
   * A test's processes live a minute or two and mostly wait, so JIT compilation beyond C1 is CPU
   * spent for nothing on a machine that runs three such tests at once.
   */
  static List<String> jvmOptions() {
    String options = System.getProperty("kandev.it.jvmOptions", "").strip();
    return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
  }

  public static Path jar() {
    String jar = System.getProperty("kandev.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("the packaged jar is missing (" + jar + "): run these tests with mvn verify");
    }
    return Path.of(jar);
  }

  /**
   * The whole line {@code --version} prints: the release as the pom names it (failsafe passes it as
   * {@code kandev.projectVersion}) and the contract version of the code.
   */
  public static String versionLine() {
    String version = System.getProperty("kandev.projectVersion");
    if (version == null || version.isBlank()) {
      throw new IllegalStateException("kandev.projectVersion is not set: run these tests with mvn verify");
    }
    return "kandev-recovery " + version + " (contract " + ContractVersion.CURRENT + ")";
  }

  private static String javaBinary() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  public long pid() {
    return process.pid();
  }

  public String name() {
    return name;
  }

  /** Everything it printed (stdout, then stderr if that is kept apart). */
  public String output() {
    return read(output) + (stderr == null ? "" : read(stderr));
  }

  /** Its stdout alone: only when its stderr is kept apart. */
  public String stdout() {
    apart();
    return read(output);
  }

  /** Its stderr alone: only when it is kept apart. */
  public String stderr() {
    apart();
    return read(stderr);
  }

  private void apart() {
    if (stderr == null) {
      throw new IllegalStateException(name + " writes stderr and stdout to one file");
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends {@code signal} (e.g. INT) to its whole process group, as a terminal's Ctrl-C does. */
  public void signalGroup(String signal) {
    kill("-" + signal, "--", "-" + pid());
  }

  /** Sends {@code signal} to the process alone. */
  public void signal(String signal) {
    kill("-" + signal, Long.toString(pid()));
  }

  private static void kill(String... args) {
    List<String> command = new ArrayList<>(List.of("kill"));
    command.addAll(List.of(args));
    try {
      int code = new ProcessBuilder(command).inheritIO().start().waitFor();
      if (code != 0) {
        throw new AssertionError(String.join(" ", command) + " exited with " + code);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Waits until the output contains {@code text}; fails with the output if the process ends first. */
  public KandevProcess awaitOutput(String text, Duration within) {
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
  public void kill() {
    process.destroyForcibly();
    waitFor(process, Duration.ofSeconds(30));
  }

  /**
   * {@code kill -TERM}, as a service manager stops it; waits for the end. A process a test left
   * stopped (SIGSTOP) is continued first: stopped, it would not act on the TERM.
   */
  public int terminate(Duration within) {
    try {
      signal("CONT");
    } catch (AssertionError ended) {
      // it ended meanwhile: nothing to continue
    }
    process.destroy();
    return awaitExit(within);
  }

  public int awaitExit(Duration within) {
    if (!waitFor(process, within)) {
      process.destroyForcibly();
      throw new AssertionError(name + " did not end within " + within + ":\n" + output());
    }
    return process.exitValue();
  }

  public boolean isAlive() {
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
