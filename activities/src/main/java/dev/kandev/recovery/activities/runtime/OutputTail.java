package dev.kandev.recovery.activities.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/** The last lines of a child's output stream, each line and the count bounded. Thread-safe. */
final class OutputTail {
  static final int MAX_LINES = 40;
  static final int MAX_LINE_CHARS = 400;

  private final Deque<String> lines = new ArrayDeque<>();

  /** Drains {@code stream} to its end on a daemon thread. */
  Thread drain(InputStream stream, String name) {
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          add(line);
        }
      } catch (IOException closed) {
        // the process was killed; what we have is the tail
      }
    }, name);
    reader.setDaemon(true);
    reader.start();
    return reader;
  }

  synchronized void add(String line) {
    String bounded = line.length() <= MAX_LINE_CHARS ? line : line.substring(0, MAX_LINE_CHARS) + "…";
    lines.addLast(bounded);
    if (lines.size() > MAX_LINES) {
      lines.removeFirst();
    }
  }

  synchronized List<String> lines() {
    return List.copyOf(lines);
  }
}
