package dev.kandev.recovery.activities.runtime;

import java.time.Duration;
import java.util.List;

/** How one child process ended, with bounded tails of its output. */
public record CommandResult(
    List<String> argv, int exitCode, boolean timedOut, Duration duration, List<String> stdout, List<String> stderr) {
  public CommandResult {
    argv = List.copyOf(argv);
    stdout = List.copyOf(stdout);
    stderr = List.copyOf(stderr);
  }

  public boolean succeeded() {
    return !timedOut && exitCode == 0;
  }

  /** A short, bounded description for failure messages. */
  public String describe() {
    String how = timedOut ? "timed out after " + duration.toSeconds() + "s" : "exited with code " + exitCode;
    List<String> tail = stderr.isEmpty() ? stdout : stderr;
    String last = tail.isEmpty() ? "" : ": " + String.join(" / ", tail.subList(Math.max(0, tail.size() - 3), tail.size()));
    return String.join(" ", argv) + " " + how + last;
  }
}
