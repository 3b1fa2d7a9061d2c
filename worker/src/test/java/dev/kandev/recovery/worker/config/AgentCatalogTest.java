package dev.kandev.recovery.worker.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.agent.AgentProfile;
import dev.kandev.recovery.activities.agent.AgentProfiles;
import dev.kandev.recovery.activities.runtime.NpmSettings;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Built-in npm agents say which agent they are (so a launch may start the installed bin); configured ones never do. */
public class AgentCatalogTest {
  private static final NpmSettings NPM = new NpmSettings("npm", "npx", Map.of("PATH", "/usr/bin"),
      Duration.ofMinutes(5), Duration.ofSeconds(60), Duration.ofSeconds(30));

  @TempDir Path dir;

  @Test
  void builtInsCarryTheirAgentAndTheNpxCommandAsFallback() {
    AgentProfile opencode = AgentCatalog.load(BuiltInAgents.KANDEV, NPM, null).get("opencode-acp");

    assertThat(opencode.builtIn()).isEqualTo(BuiltInAgents.KANDEV.find("opencode-acp").orElseThrow());
    assertThat(opencode.argv()).containsExactly(
        "npx", "--yes", "--prefer-offline", "opencode-ai", "acp", "--print-logs", "--log-level", "ERROR");
  }

  @Test
  void profilesOfTheAgentsFileAreLaunchedAsConfiguredEvenUnderABuiltInId() throws Exception {
    Path file = Files.writeString(dir.resolve("agents.json"),
        "{\"opencode-acp\": {\"argv\": [\"npx\", \"--yes\", \"--prefer-offline\", \"opencode-ai\", \"acp\"]},"
            + " \"mine\": {\"argv\": [\"/opt/mine\"]}}");

    AgentProfiles profiles = AgentCatalog.load(BuiltInAgents.KANDEV, NPM, file);

    assertThat(profiles.get("opencode-acp").builtIn()).isNull();
    assertThat(profiles.get("opencode-acp").argv()).containsExactly("npx", "--yes", "--prefer-offline", "opencode-ai", "acp");
    assertThat(profiles.get("mine").builtIn()).isNull();
    assertThat(profiles.get("claude-acp").builtIn()).isNotNull();
    assertThat(profiles.ids()).containsAll(List.of("claude-acp", "codex-acp", "copilot-acp", "gemini", "mine"));
  }
}
