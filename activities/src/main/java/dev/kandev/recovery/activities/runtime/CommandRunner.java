package dev.kandev.recovery.activities.runtime;

import dev.kandev.recovery.activities.process.OutputTail;
import dev.kandev.recovery.activities.process.ProcessTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a child as a direct argv (never a shell) with exactly the given environment, no stdin, a
 * hard time bound (the whole process tree is killed when it passes) and bounded output tails.
 */
public final class CommandRunner {
  public CommandResult run(List<String> argv, Map<String, String> environment, Duration timeout, boolean mergeStderr) {
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(mergeStderr);
    builder.environment().clear();
    builder.environment().putAll(environment);
    long started = System.nanoTime();
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + argv.get(0) + ": " + e.getMessage(), e);
    }
    try {
      process.getOutputStream().close();
    } catch (IOException ignored) {
      // nothing to close
    }
    OutputTail out = OutputTail.drain(process.getInputStream(), "npm-stdout-" + process.pid());
    OutputTail err = mergeStderr ? null : OutputTail.drain(process.getErrorStream(), "npm-stderr-" + process.pid());
    boolean timedOut = false;
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        timedOut = true;
        ProcessTrees.kill(process);
      }
      out.awaitEnd(Duration.ofSeconds(2));
      if (err != null) {
        err.awaitEnd(Duration.ofSeconds(2));
      }
    } catch (InterruptedException e) {
      ProcessTrees.kill(process);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + argv.get(0), e);
    }
    int exit = timedOut ? -1 : process.exitValue();
    return new CommandResult(argv, exit, timedOut, Duration.ofNanos(System.nanoTime() - started), out.lines(), err == null ? List.of() : err.lines());
  }
}
