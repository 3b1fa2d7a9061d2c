package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.FakeSecrets;
import dev.kandev.recovery.activities.testing.TestAgentPackage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What of a probed agent's stderr reaches the probe's failure (the RUNTIME_PROBE_FAILED message). */
class ProbeStderrRedactionTest {
  @TempDir Path dir;

  @Test
  void theStderrTailOfAFailedProbeCarriesNoSecretOfAnyShape() {
    Map<String, String> env = Map.of("PATH", System.getenv("PATH"), "KANDEV_TEST_AGENT_STATE_DIR", dir.toString());
    List<String> argv = List.of("node", TestAgentPackage.sourceDir().resolve("bin/kandev-test-agent.js").toString(),
        "--mode=leak-secrets");

    AcpProbe.ProbeFailedException failure = catchThrowableOfType(AcpProbe.ProbeFailedException.class,
        () -> new StdioAcpProbe(Json.mapper()).probe(argv, env, Duration.ofSeconds(60)));

    // The probe keeps the last lines: what the agent wrote last is there, masked.
    assertThat(failure.getMessage()).contains("stderr: ").contains("{\"apiKey\": ***}", "KANDEV_DB_PASSWORD=***");
    assertThat(failure.getMessage()).doesNotContain(FakeSecrets.values().toArray(String[]::new));
  }
}
