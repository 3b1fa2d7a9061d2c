package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.process.OutputTail;
import dev.kandev.recovery.activities.process.OwnProcessSession;
import dev.kandev.recovery.activities.process.ProcessTrees;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One agent child process: started from argv without a shell in a process session of its own,
 * stderr kept as a bounded tail.
 */
final class AgentProcess {
  private final Process process;
  private final OutputTail stderr;

  private AgentProcess(Process process, String name) {
    this.process = process;
    this.stderr = OutputTail.drain(process.getErrorStream(), "agent-stderr-" + name);
  }

  /**
   * Starts the process; an {@link IOException} means it could not be started at all. {@code
   * workerPath} is the worker's {@code PATH}, where the program is looked up (as the JDK would).
   */
  static AgentProcess start(
      String name, List<String> argv, Path directory, Map<String, String> env, String workerPath, Duration timeout)
      throws IOException, TimeoutException {
    ProcessBuilder builder = new ProcessBuilder(OwnProcessSession.command(argv, directory, workerPath));
    builder.directory(directory.toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    CompletableFuture<Process> started = new CompletableFuture<>();
    Thread starter = new Thread(() -> {
      try {
        started.complete(builder.start());
      } catch (IOException | RuntimeException e) {
        started.completeExceptionally(e);
      }
    }, "agent-spawn-" + name);
    starter.setDaemon(true);
    starter.start();
    try {
      return new AgentProcess(started.get(timeout.toMillis(), TimeUnit.MILLISECONDS), name);
    } catch (TimeoutException e) {
      // A process that starts after we gave up must not be left behind.
      started.thenAccept(Process::destroyForcibly);
      throw new TimeoutException("the agent process did not start within " + timeout);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      started.thenAccept(Process::destroyForcibly);
      throw new IOException("interrupted while starting the agent process", e);
    }
  }

  Process process() {
    return process;
  }

  long pid() {
    return process.pid();
  }

  /** The stderr tail, complete if the process has exited (waits briefly for the reader to drain). */
  String stderrTail() {
    if (!process.isAlive()) {
      stderr.awaitEnd(Duration.ofSeconds(1));
    }
    return stderr.text();
  }

  /** The exit code if the process exits within {@code wait}, else null. */
  Integer exitCodeWithin(Duration wait) {
    try {
      return process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return process.isAlive() ? null : process.exitValue();
    }
  }

  /**
   * Ends the process and waits for it (the JDK reaps it): a grace period after the caller closed
   * stdin, then SIGTERM, then SIGKILL. Returns the exit code.
   */
  int terminate(Duration grace) {
    Integer code = exitCodeWithin(grace);
    if (code == null) {
      ProcessTrees.terminate(process);
      code = exitCodeWithin(grace);
    }
    if (code == null) {
      ProcessTrees.destroyForcibly(process);
      try {
        code = process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        code = -1;
      }
    }
    return code;
  }

  /** Kills at once (a failed launch has nothing to finish) and waits for the process. */
  int kill() {
    if (process.isAlive()) {
      ProcessTrees.destroyForcibly(process);
    }
    try {
      return process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
