package dev.kandev.recovery.worker.dev;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code dev} reads besides the worker's settings.
 *
 * @param temporalCli the Temporal CLI named by {@code KANDEV_TEMPORAL_CLI}; empty: look for one
 * @param existingServer {@code TEMPORAL_ADDRESS} when it is set: use that server, start none
 */
public record DevSettings(Optional<Path> temporalCli, Optional<String> existingServer) {
  public static DevSettings fromEnvironment(Map<String, String> env) {
    return new DevSettings(nonBlank(env.get("KANDEV_TEMPORAL_CLI")).map(Path::of), nonBlank(env.get("TEMPORAL_ADDRESS")));
  }

  private static Optional<String> nonBlank(String value) {
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }
}
