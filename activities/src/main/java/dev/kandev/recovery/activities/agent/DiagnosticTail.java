package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.redaction.Redaction;
import java.util.List;

/**
 * The agent's stderr tail as diagnostics show it — in a launch failure's message, which Temporal
 * keeps in the workflow's history for anyone with Web UI access, and in {@code executors_running}:
 * the one {@link Redaction} (every secret of the agent's environment, and credentials of a known
 * shape although the worker never gave them), then at most {@link #MAX_CHARS} characters, the last ones.
 */
final class DiagnosticTail {
  /** What a failure message keeps of the tail: the end, where an agent says why it exits. */
  static final int MAX_CHARS = 2000;

  private DiagnosticTail() {}

  /** {@code tail} redacted (the environment's {@code secrets} and every known shape), then bounded. */
  static String of(String tail, List<String> secrets) {
    return bounded(Redaction.of(secrets).apply(tail == null ? "" : tail));
  }

  /** The last {@link #MAX_CHARS} characters, from a line start where one is near, marked as cut. */
  private static String bounded(String text) {
    if (text.length() <= MAX_CHARS) {
      return text;
    }
    String end = text.substring(text.length() - MAX_CHARS);
    int line = end.indexOf('\n');
    if (line >= 0 && line < MAX_CHARS / 4) {
      end = end.substring(line + 1);
    }
    return "[… " + (text.length() - end.length()) + " earlier characters left out]\n" + end;
  }
}
