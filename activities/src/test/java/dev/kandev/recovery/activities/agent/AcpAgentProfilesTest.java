package dev.kandev.recovery.activities.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.workflows.model.Fence;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AcpAgentProfilesTest {
  @Test
  void profilesAreReadFromJson() {
    AgentProfiles profiles = AgentProfiles.fromJson("""
        {"opencode": {"argv": ["npx", "--yes", "opencode-ai", "acp"]},
         "test": {"argv": ["node", "agent.js"], "env": {"A": "1"}, "cwd": "/srv/agents"}}
        """);

    assertThat(profiles.ids()).containsExactly("opencode", "test");
    assertThat(profiles.get("opencode")).isEqualTo(
        new AgentProfile("opencode", List.of("npx", "--yes", "opencode-ai", "acp"), Map.of(), null));
    assertThat(profiles.get("test").env()).containsEntry("A", "1");
    assertThat(profiles.get("test").workingDirectoryFor(Path.of("/ws"))).isEqualTo(Path.of("/srv/agents"));
    assertThat(profiles.get("opencode").workingDirectoryFor(Path.of("/ws"))).isEqualTo(Path.of("/ws"));
  }

  @Test
  void unknownAgentIdListsTheKnownIds() {
    AgentProfiles profiles = AgentProfiles.fromJson("{\"b\": {\"argv\": [\"x\"]}, \"a\": {\"argv\": [\"y\"]}}");

    assertThatThrownBy(() -> profiles.get("c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown agent profile 'c'; known agent ids: [a, b]");
  }

  @Test
  void malformedProfilesAreRejectedClearly() {
    assertThatThrownBy(() -> AgentProfiles.fromJson("{\"a\": {\"argv\": []}}"))
        .hasMessageContaining("'a' needs a non-empty argv");
    assertThatThrownBy(() -> AgentProfiles.fromJson("{\"a\": {\"argv\": \"npx\"}}"))
        .hasMessageContaining("argv must be an array");
    assertThatThrownBy(() -> AgentProfiles.fromJson("{\"a\": {\"argv\": [\"x\"], \"env\": {\"K\": 1}}}"))
        .hasMessageContaining("env.K must be a string");
    assertThatThrownBy(() -> AgentProfiles.fromJson("[]")).hasMessageContaining("keyed by agent id");
  }

  @Test
  void envValuesNeverAppearInTextRenderings() {
    AgentProfile profile = new AgentProfile("a", List.of("x"), Map.of("API_KEY", "sk-secret-value"), null);
    LaunchRequest request = new LaunchRequest("s", "a", Path.of("/ws"), Map.of("GH_TOKEN", "ghs_secret"), Fence.none());

    assertThat(profile.toString()).contains("API_KEY").doesNotContain("sk-secret-value");
    assertThat(request.toString()).contains("GH_TOKEN").doesNotContain("ghs_secret");
  }

  @Test
  void childEnvironmentIsBuiltFromPassThroughProfileAndCredentialsOnly() {
    Map<String, String> worker = Map.of("PATH", "/bin", "DATABASE_URL", "postgres://x", "HOME", "/root");

    Map<String, String> env = AgentEnvironment.build(
        worker, Map.of("HOME", "/agent-home", "P", "1"), Map.of("GH_TOKEN", "t0k3n-value", "P", "2"));

    assertThat(env).containsOnly(
        Map.entry("PATH", "/bin"), Map.entry("HOME", "/agent-home"), Map.entry("P", "2"),
        Map.entry("GH_TOKEN", "t0k3n-value"));
    assertThat(AgentHostSettings.inheritedFrom(worker)).containsOnly(Map.entry("PATH", "/bin"), Map.entry("HOME", "/root"));
  }
}
