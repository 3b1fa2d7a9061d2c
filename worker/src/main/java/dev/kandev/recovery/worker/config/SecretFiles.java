package dev.kandev.recovery.worker.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Secrets given as files (Docker and Kubernetes secrets, {@code /run/secrets/…}) instead of plain
 * values in the environment: {@code <NAME>_FILE} names a file whose content is the value of
 * {@code <NAME>}. One trailing line break is dropped (files end with one); the rest is the value as
 * it is. Setting both is refused, so a stale variable never silently wins over a rotated file. (The
 * GitHub App's key has its own {@code KANDEV_GITHUB_APP_PRIVATE_KEY_FILE}, read as PEM.)
 */
final class SecretFiles {
  /** Each secret variable with the variable that names its file. */
  static final Map<String, String> FILE_VARIABLES = Map.of(
      "KANDEV_DB_PASSWORD", "KANDEV_DB_PASSWORD_FILE",
      "TEMPORAL_API_KEY", "TEMPORAL_API_KEY_FILE");

  private SecretFiles() {}

  /** {@code environment} with the value of each secret whose {@code _FILE} variable is set read from that file. */
  static Map<String, String> resolved(Map<String, String> environment) {
    Map<String, String> resolved = null;
    for (Map.Entry<String, String> secret : FILE_VARIABLES.entrySet()) {
      String file = environment.get(secret.getValue());
      if (file == null || file.isBlank()) {
        continue;
      }
      String value = environment.get(secret.getKey());
      if (value != null && !value.isEmpty()) {
        throw new IllegalArgumentException("set " + secret.getKey() + " or " + secret.getValue() + ", not both");
      }
      if (resolved == null) {
        resolved = new HashMap<>(environment);
      }
      resolved.put(secret.getKey(), read(secret.getValue(), Path.of(file.trim())));
    }
    return resolved == null ? environment : resolved;
  }

  private static String read(String variable, Path file) {
    try {
      String content = Files.readString(file, StandardCharsets.UTF_8);
      return content.endsWith("\r\n") ? content.substring(0, content.length() - 2)
          : content.endsWith("\n") ? content.substring(0, content.length() - 1) : content;
    } catch (IOException e) {
      throw new IllegalArgumentException(variable + " must name a readable file, got '" + file + "' ("
          + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
    }
  }
}
