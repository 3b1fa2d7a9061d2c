package dev.kandev.recovery.worker.dev;

import java.nio.file.Path;
import java.util.Optional;

/**
 * What {@code dev} reads besides the worker's settings (the worker's {@code Settings} read them).
 *
 * @param temporalCli the Temporal CLI named by {@code KANDEV_TEMPORAL_CLI}; empty: look for one
 * @param existingServer {@code TEMPORAL_ADDRESS} when it is set: use that server, start none
 * @param path the worker's {@code PATH}, the last place the Temporal CLI is looked for; null: unset
 */
public record DevSettings(Optional<Path> temporalCli, Optional<String> existingServer, String path) {}
