package dev.kandev.recovery.activities.runtime;

import dev.kandev.recovery.activities.redaction.Redaction;
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

  /** The same result with its output redacted (see {@link Redaction}): what may enter a result, a failure or a log. */
  public CommandResult redacted(Redaction redaction) {
    return new CommandResult(argv, exitCode, timedOut, duration, redaction.apply(stdout), redaction.apply(stderr));
  }

  public boolean succeeded() {
    return !timedOut && exitCode == 0;
  }

  /** A short, bounded description for failure messages: the command, how it ended, npm's first error lines. */
  public String describe() {
    String how = timedOut ? "timed out after " + duration.toSeconds() + "s" : "exited with code " + exitCode;
    List<String> output = stderr.isEmpty() ? stdout : stderr;
    List<String> errors = output.stream()
        .filter(line -> line.startsWith("npm error") || line.startsWith("npm ERR!"))
        .filter(line -> !line.contains("A complete log of this run"))
        .limit(3)
        .toList();
    List<String> shown = errors.isEmpty() ? output.subList(Math.max(0, output.size() - 3), output.size()) : errors;
    return command() + " " + how + (shown.isEmpty() ? "" : ": " + String.join(" / ", shown));
  }

  /** The argv as one readable line (empty arguments shown as ""); it is never run through a shell. */
  public String command() {
    return String.join(" ", argv.stream().map(arg -> arg.isEmpty() ? "\"\"" : arg).toList());
  }
}
