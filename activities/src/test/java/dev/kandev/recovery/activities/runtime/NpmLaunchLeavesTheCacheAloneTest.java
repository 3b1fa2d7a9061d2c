package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.FileTreeSnapshot;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import dev.kandev.recovery.activities.testing.TestAgentNpmWorld;
import dev.kandev.recovery.activities.testing.TestAgentPackage;
import dev.kandev.recovery.workflows.runtime.AgentRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A normal launch of a corrupt runtime fails, and nothing repairs or deletes the tree: only the
 * explicit update job does that. Holds for both ways a launch starts a built-in agent ({@link
 * NpmLaunch}): its installed bin directly, and the npx fallback.
 */
class NpmLaunchLeavesTheCacheAloneTest {
  private static final AgentRuntime AGENT =
      new AgentRuntime("kandev-test-agent", TestAgentPackage.NAME, TestAgentPackage.NAME, List.of());

  @RegisterExtension static final TestAgentNpmWorld world = new TestAgentNpmWorld();

  @Test
  void launchingATruncatedBinDirectlyFailsAndLeavesTheTreeInPlace() throws Exception {
    launchCorrupt(false);
  }

  @Test
  void launchingACorruptTreeThroughNpxFailsAndLeavesTheTreeInPlace() throws Exception {
    launchCorrupt(true);
  }

  /** Installs the agent, truncates its entry file (and, for npx, takes its exec bit), launches it. */
  private void launchCorrupt(boolean npxFallback) throws Exception {
    NpmSandbox sandbox = world.sandbox();
    NpmLaunch launch = new NpmLaunch(sandbox.settings(), new CommandRunner());
    StdioAcpProbe probe = new StdioAcpProbe(Json.mapper());
    List<String> npx = sandbox.settings().launchCommand(AGENT.packageSpec(), List.of());
    assertThat(probe.probe(npx, sandbox.environment(), Duration.ofSeconds(30)).agentName())
        .isEqualTo("kandev-test-agent");

    Path entry = sandbox.npxTree("kandev-test-agent").resolve("node_modules/kandev-test-agent/bin/kandev-test-agent.js");
    Files.write(entry, new byte[0]);
    if (npxFallback) {
      Files.setPosixFilePermissions(entry, PosixFilePermissions.fromString("rw-r--r--"));
    }
    Map<String, String> before = withoutLogs(FileTreeSnapshot.of(sandbox.cache()));

    NpmLaunch.Plan plan = launch.plan(AGENT);
    assertThat(plan.direct()).isEqualTo(!npxFallback);
    assertThat(plan.argv()).isEqualTo(npxFallback ? npx : List.of(entry.toRealPath().toString()));
    assertThatThrownBy(() -> probe.probe(plan.argv(), sandbox.environment(), Duration.ofSeconds(30)))
        .isInstanceOf(AcpProbe.ProbeFailedException.class)
        .hasMessageContaining("before answering initialize");
    assertThat(entry).isEmptyFile();
    assertThat(withoutLogs(FileTreeSnapshot.of(sandbox.cache()))).isEqualTo(before);
  }

  /** npm writes its own debug logs under {@code _logs} on every run. */
  private static Map<String, String> withoutLogs(Map<String, String> snapshot) {
    Map<String, String> files = new TreeMap<>(snapshot);
    files.keySet().removeIf(path -> path.startsWith("_logs"));
    return files;
  }
}
