package dev.kandev.recovery.activities.agent;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The agent's stderr tail as diagnostics show it — in a launch failure's message, which Temporal
 * keeps in the workflow's history for anyone with Web UI access: every secret of the agent's
 * environment masked (as {@link AgentEnvironment#redact}), credentials of a known shape masked
 * although the worker never gave them (GitHub tokens, a bearer or basic Authorization, a URL's
 * password, a private key), and at most {@link #MAX_CHARS} characters, the last ones.
 */
final class DiagnosticTail {
  /** What a failure message keeps of the tail: the end, where an agent says why it exits. */
  static final int MAX_CHARS = 2000;
  static final String MASK = "***";

  private static final List<Pattern> SHAPES = List.of(
      // GitHub: installation, personal, OAuth, user-to-server, refresh tokens; fine-grained PATs.
      Pattern.compile("\\b(?:gh[psour]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
      Pattern.compile("(?i)(?<=\\b(?:authorization:\\s?)?(?:bearer|basic|token)\\s)[A-Za-z0-9._~+/=-]{8,}"),
      Pattern.compile("(?<=://[^/\\s:@]{1,256}:)[^@\\s/]{1,256}(?=@)"),
      Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\\z)"));

  private DiagnosticTail() {}

  /** {@code tail} redacted (the environment's {@code secrets} and the shapes above), then bounded. */
  static String of(String tail, List<String> secrets) {
    String out = AgentEnvironment.redact(tail == null ? "" : tail, secrets);
    for (Pattern shape : SHAPES) {
      out = shape.matcher(out).replaceAll(MASK);
    }
    return bounded(out);
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
