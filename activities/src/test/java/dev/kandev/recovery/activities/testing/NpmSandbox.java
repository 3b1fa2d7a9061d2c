package dev.kandev.recovery.activities.testing;

import dev.kandev.recovery.activities.runtime.NpmSettings;
import dev.kandev.recovery.activities.runtime.NpxKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * A private npm world for one test: its own HOME (no user .npmrc) and its own cache
 * ({@code npm_config_cache}), pointed at a local registry.
 */
public record NpmSandbox(Path home, Path cache, String registryUrl) {
  public static NpmSandbox in(Path dir, String registryUrl) throws IOException {
    return new NpmSandbox(
        Files.createDirectories(dir.resolve("home")), Files.createDirectories(dir.resolve("npm-cache")), registryUrl);
  }

  public Map<String, String> environment() {
    Map<String, String> env = new TreeMap<>();
    env.put("PATH", System.getenv("PATH"));
    env.put("HOME", home.toString());
    env.put("npm_config_cache", cache.toString());
    env.put("npm_config_registry", registryUrl);
    env.put("npm_config_update_notifier", "false");
    env.put("npm_config_fund", "false");
    env.put("npm_config_audit", "false");
    return env;
  }

  public NpmSettings settings() {
    return new NpmSettings("npm", "npx", environment(), Duration.ofSeconds(90), Duration.ofSeconds(30), Duration.ofSeconds(30));
  }

  /** Where npm keeps the execution tree of {@code spec}. */
  public Path npxTree(String spec) {
    return cache.resolve("_npx").resolve(NpxKey.of(spec));
  }
}
