package dev.kandev.recovery.worker.dev;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code dev} reads besides the worker's settings.
 *
 * @param stateDir where the dev server keeps its database file, log and pid file
 * @param temporalCli the Temporal CLI named by {@code KANDEV_TEMPORAL_CLI}; empty: look for one
 * @param existingServer {@code TEMPORAL_ADDRESS} when it is set: use that server, start none
 */
public record DevSettings(Path stateDir, Optional<Path> temporalCli, Optional<String> existingServer) {
  public static DevSettings fromEnvironment(Map<String, String> env) {
    return new DevSettings(
        stateDir(env),
        nonBlank(env.get("KANDEV_TEMPORAL_CLI")).map(Path::of),
        nonBlank(env.get("TEMPORAL_ADDRESS")));
  }

  /** {@code KANDEV_STATE_DIR}, else {@code $XDG_STATE_HOME/kandev-recovery}, else {@code ~/.local/state/kandev-recovery}. */
  private static Path stateDir(Map<String, String> env) {
    Optional<String> explicit = nonBlank(env.get("KANDEV_STATE_DIR"));
    if (explicit.isPresent()) {
      return Path.of(explicit.get());
    }
    Path base = nonBlank(env.get("XDG_STATE_HOME")).map(Path::of)
        .orElseGet(() -> Path.of(System.getProperty("user.home"), ".local", "state"));
    return base.resolve("kandev-recovery");
  }

  private static Optional<String> nonBlank(String value) {
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }
}
