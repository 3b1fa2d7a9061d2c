package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.cli.Main;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The production worker ({@code Main worker}) as a separate JVM on the test classpath, configured
 * only by its environment, with its output in a log file. A test can pause it as a stalled host
 * would be ({@code SIGSTOP}: every thread stops, its sockets and child processes stay) and let it go
 * on ({@code SIGCONT}).
 */
public final class WorkerJvm implements AutoCloseable {
  private final Process process;
  private final Path log;
  private boolean paused;

  private WorkerJvm(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts {@code Main worker} with {@code env} replacing every KANDEV_ and TEMPORAL_ variable of this JVM's. */
  public static WorkerJvm start(Map<String, String> env, Path log) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // Surefire puts the test classpath here (java.class.path may be its manifest-only booter jar).
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-cp", classpath, Main.class.getName(), "worker")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().keySet().removeIf(name -> name.startsWith("KANDEV_") || name.startsWith("TEMPORAL_"));
    builder.environment().putAll(env);
    try {
      return new WorkerJvm(builder.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the worker JVM", e);
    }
  }

  /** Waits until the worker polls its task queue and has run its start-up recovery. */
  public WorkerJvm awaitReady(Duration timeout) {
    Await.until(() -> {
      if (!process.isAlive()) {
        throw new AssertionError("the worker JVM exited with " + process.exitValue() + ":\n" + logTail());
      }
      return logTail().contains("Ready. Press Ctrl-C to stop.");
    }, timeout, "the worker JVM to be ready");
    return this;
  }

  public long pid() {
    return process.pid();
  }

  /** Every thread of the worker stops, as on a stalled host; its agents keep running. */
  public void pause() {
    signal("STOP");
    paused = true;
  }

  public void resume() {
    signal("CONT");
    paused = false;
  }

  public String logTail() {
    try {
      if (!Files.exists(log)) {
        return "";
      }
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 200), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Stops the worker as Ctrl-C would (it stops its agents), forcibly if it does not end in time. */
  @Override
  public void close() {
    if (paused) {
      resume();
    }
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        List<ProcessHandle> children = new ArrayList<>(process.descendants().toList());
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        children.forEach(ProcessHandle::destroyForcibly);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
