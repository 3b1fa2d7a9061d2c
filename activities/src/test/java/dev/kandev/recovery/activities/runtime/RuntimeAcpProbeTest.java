package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.TestAgentPackage;
import dev.kandev.recovery.workflows.runtime.ProbeInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ACP initialize probe against the real test agent process (run with node directly). */
class RuntimeAcpProbeTest {
  @TempDir Path dir;

  private final StdioAcpProbe probe = new StdioAcpProbe(Json.mapper());

  private List<String> agent(String mode) {
    return List.of("node", TestAgentPackage.sourceDir().resolve("bin/kandev-test-agent.js").toString(), "--mode=" + mode);
  }

  private Map<String, String> env() {
    return Map.of("PATH", System.getenv("PATH"), "KANDEV_TEST_AGENT_STATE_DIR", dir.toString());
  }

  @Test
  void aHealthyAgentAnswersInitialize() throws Exception {
    ProbeInfo info = probe.probe(agent("normal"), env(), Duration.ofSeconds(20));

    assertThat(info).isEqualTo(new ProbeInfo("kandev-test-agent", "1.0.0", 1, true));
  }

  @Test
  void anAgentExitingBeforeInitializeFailsTheProbe() {
    assertThatThrownBy(() -> probe.probe(agent("exit-before-initialize"), env(), Duration.ofSeconds(20)))
        .isInstanceOf(AcpProbe.ProbeFailedException.class)
        .hasMessageContaining("before answering initialize");
  }

  @Test
  void anAgentThatNeverAnswersFailsTheProbeInBoundedTime() {
    long started = System.nanoTime();
    assertThatThrownBy(() -> probe.probe(agent("hang-initialize"), env(), Duration.ofSeconds(2)))
        .isInstanceOf(AcpProbe.ProbeFailedException.class)
        .hasMessageContaining("initialize was not answered within PT2S");
    // The message says the probe's 2 s timeout ended it; this bound only catches a probe that then
    // hangs (stopping the agent), generous for a busy machine, no performance threshold.
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMinutes(1));
  }

  @Test
  void aMissingExecutableFailsTheProbe() {
    assertThatThrownBy(() -> probe.probe(List.of(dir.resolve("no-such-agent").toString()), env(), Duration.ofSeconds(5)))
        .isInstanceOf(AcpProbe.ProbeFailedException.class)
        .hasMessageContaining("cannot start");
  }
}
