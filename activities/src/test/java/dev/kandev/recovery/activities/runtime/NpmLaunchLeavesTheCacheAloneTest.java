package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.LocalNpmRegistry;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import dev.kandev.recovery.activities.testing.TestAgentPackage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A normal launch ({@code npx --yes --prefer-offline <spec>}, what the probe runs) of a corrupt
 * runtime fails, and nothing repairs or deletes the tree: only the explicit update job does that.
 */
class NpmLaunchLeavesTheCacheAloneTest {
  @TempDir Path dir;

  @Test
  void launchingACorruptRuntimeFailsAndLeavesItsTreeInPlace() throws Exception {
    try (LocalNpmRegistry registry =
        LocalNpmRegistry.serve(TestAgentPackage.NAME, TestAgentPackage.VERSION, TestAgentPackage.pack(dir))) {
      NpmSandbox sandbox = NpmSandbox.in(dir, registry.url());
      NpmSettings npm = sandbox.settings();
      List<String> launch = npm.launchCommand("kandev-test-agent", List.of());
      StdioAcpProbe probe = new StdioAcpProbe(Json.mapper());
      assertThat(probe.probe(launch, sandbox.environment(), Duration.ofSeconds(30)).agentName())
          .isEqualTo("kandev-test-agent");

      Path entry = sandbox.npxTree("kandev-test-agent").resolve("node_modules/kandev-test-agent/bin/kandev-test-agent.js");
      Files.write(entry, new byte[0]);

      assertThatThrownBy(() -> probe.probe(launch, sandbox.environment(), Duration.ofSeconds(30)))
          .isInstanceOf(AcpProbe.ProbeFailedException.class)
          .hasMessageContaining("before answering initialize");
      assertThat(entry).isEmptyFile();
    }
  }
}
