package dev.kandev.recovery.activities.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The fake credentials of {@code test-agent/fake-secrets.tsv}, one of every shape the redaction
 * knows: what the test agent's {@code leak-secrets} mode writes to stderr, and what must then be
 * found nowhere.
 */
public final class FakeSecrets {
  private FakeSecrets() {}

  public static Path file() {
    return TestAgentPackage.sourceDir().resolve("fake-secrets.tsv");
  }

  /** The lines as a process prints them. */
  public static List<String> lines() {
    return rows().stream().map(row -> row[0]).toList();
  }

  /** The secret in each line. */
  public static List<String> values() {
    return rows().stream().map(row -> row[1]).toList();
  }

  private static List<String[]> rows() {
    try {
      return Files.readAllLines(file()).stream().filter(line -> !line.isBlank() && !line.startsWith("#"))
          .map(line -> line.split("\t")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
