package dev.kandev.recovery.activities.runtime;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;

/** npm's cache root, as npm itself reports it ({@code npm config get cache}, direct argv). */
public record NpmCacheRoot(NpmSettings settings, CommandRunner runner) {
  public Path resolve() throws CacheRepairException {
    CommandResult result;
    try {
      result = runner.run(settings.cacheRootCommand(), settings.environment(), settings.configTimeout(), false);
    } catch (RuntimeException e) {
      throw CacheRepairException.failed("resolve npm cache root: " + e.getMessage(), e);
    }
    if (!result.succeeded()) {
      throw CacheRepairException.failed("resolve npm cache root: " + result.describe(), null);
    }
    return validate(lastLine(result.stdout()));
  }

  /** The root must be absolute and already normalized, and must not be {@code /} or an {@code _npx} dir. */
  static Path validate(String printed) throws CacheRepairException {
    if (printed.isEmpty()) {
      throw CacheRepairException.refused("npm reported an empty cache root");
    }
    Path root;
    try {
      root = Path.of(printed);
    } catch (InvalidPathException e) {
      throw CacheRepairException.refused("npm cache root '" + printed + "' is not a path");
    }
    if (!root.isAbsolute()) {
      throw CacheRepairException.refused("npm cache root '" + printed + "' is not absolute");
    }
    if (!root.normalize().equals(root) || printed.contains("/./") || printed.endsWith("/.")) {
      throw CacheRepairException.refused("npm cache root '" + printed + "' is not normalized");
    }
    if (root.getParent() == null) {
      throw CacheRepairException.refused("npm cache root '" + printed + "' is a filesystem root");
    }
    if (root.getFileName().toString().equals("_npx")) {
      throw CacheRepairException.refused("npm cache root '" + printed + "' is itself an _npx directory");
    }
    return root;
  }

  private static String lastLine(List<String> stdout) {
    for (int i = stdout.size() - 1; i >= 0; i--) {
      if (!stdout.get(i).isBlank()) {
        return stdout.get(i).strip();
      }
    }
    return "";
  }
}
