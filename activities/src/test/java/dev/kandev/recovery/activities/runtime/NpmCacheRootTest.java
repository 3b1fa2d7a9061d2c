package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.testing.NpmSandbox;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NpmCacheRootTest {
  @TempDir Path dir;

  @Test
  void realNpmReportsThePrivateCacheRoot() throws Exception {
    NpmSandbox sandbox = NpmSandbox.in(dir, "http://127.0.0.1:9/");

    assertThat(new NpmCacheRoot(sandbox.settings(), new CommandRunner()).resolve()).isEqualTo(sandbox.cache());
  }

  @Test
  void aRelativeRootIsRefused() {
    assertThatThrownBy(() -> NpmCacheRoot.validate("relative-cache"))
        .isInstanceOf(CacheRepairException.class).hasMessageContaining("not absolute")
        .matches(e -> ((CacheRepairException) e).refused(), "reported as refused");
  }

  @Test
  void aFailingNpmIsARepairFailureNotAGuess() throws Exception {
    NpmSandbox sandbox = NpmSandbox.in(dir, "http://127.0.0.1:9/");
    NpmSettings broken = new NpmSettings("false", "npx", sandbox.environment(),
        Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5));

    assertThatThrownBy(() -> new NpmCacheRoot(broken, new CommandRunner()).resolve())
        .isInstanceOf(CacheRepairException.class).hasMessageContaining("resolve npm cache root")
        .matches(e -> !((CacheRepairException) e).refused(), "reported as failed, not refused");
  }

  @Test
  void commandsAreTheKandevArgvWithoutAShell() {
    NpmSettings settings = new NpmSettings("npm", "npx", Map.of(), Duration.ofMinutes(5), Duration.ofMinutes(1), Duration.ofSeconds(30));

    assertThat(settings.updateCommand("opencode-ai"))
        .containsExactly("npm", "exec", "--yes", "--prefer-online", "--package=opencode-ai", "--", "node", "-e", "");
    assertThat(settings.launchCommand("opencode-ai", List.of("acp", "--print-logs", "--log-level", "ERROR")))
        .containsExactly("npx", "--yes", "--prefer-offline", "opencode-ai", "acp", "--print-logs", "--log-level", "ERROR");
    assertThat(settings.cacheRootCommand()).containsExactly("npm", "config", "get", "cache");
  }

  @Test
  void theChildEnvironmentInheritsOnlyWhatNpmNeeds() {
    Map<String, String> inherited = NpmSettings.inheritedFrom(Map.of(
        "PATH", "/usr/bin", "HOME", "/home/k", "KANDEV_DB_PASSWORD", "secret", "GITHUB_TOKEN", "ghs_x",
        "npm_config_registry", "http://registry.local/"));

    assertThat(inherited).containsOnlyKeys("PATH", "HOME", "npm_config_registry");
  }

  @Test
  void aChildBoundBeyondTheStepTimeoutIsRejected() {
    assertThatThrownBy(() -> new NpmSettings("npm", "npx", Map.of(), NpmSettings.MAX_UPDATE_TIMEOUT.plusSeconds(1),
            Duration.ofSeconds(60), Duration.ofSeconds(30)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("update timeout");
    assertThatThrownBy(() -> new NpmSettings("npm", "npx", Map.of(), Duration.ofMinutes(5), Duration.ZERO,
            Duration.ofSeconds(30)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("probe timeout");
    assertThat(new NpmSettings("npm", "npx", Map.of(), NpmSettings.MAX_UPDATE_TIMEOUT, NpmSettings.MAX_PROBE_TIMEOUT,
        Duration.ofSeconds(30)).updateTimeout()).isEqualTo(Duration.ofSeconds(330));
  }
}
