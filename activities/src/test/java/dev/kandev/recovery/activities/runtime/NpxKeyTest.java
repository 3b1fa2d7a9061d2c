package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NpxKeyTest {
  @ParameterizedTest
  @CsvSource({
    // Kandev's own test vectors (managed_npm_runtime_test.go)
    "opencode-ai, e2094862b59aac7b",
    "opencode-ai@1.18.5, cd439a892fc193b3",
    // the other built-ins (reference §7.1, computed with sha512sum)
    "@agentclientprotocol/claude-agent-acp, d820eb7d96bc2600",
    "@agentclientprotocol/codex-acp, 4877722a062902ce",
    "@github/copilot, 965e8981e34edf7c",
    "@google/gemini-cli, d07ada7b4a99c96e",
    // the packaged test agent; NpxKeyMatchesNpmTest checks npm creates this very directory
    "kandev-test-agent, 11f3db52596b42de",
  })
  void keyIsTheFirst16LowercaseHexCharsOfSha512OfTheSpec(String spec, String key) {
    assertThat(NpxKey.of(spec)).isEqualTo(key);
  }

  @Test
  void aVersionedScopedSpecHasItsOwnKey() {
    assertThat(NpxKey.of("@github/copilot@1.0.0")).isNotEqualTo(NpxKey.of("@github/copilot")).hasSize(16);
  }

  @Test
  void everyBuiltInAgentHasAKey() {
    BuiltInAgents.KANDEV.all().forEach(agent -> assertThat(NpxKey.of(agent.packageSpec())).matches("[0-9a-f]{16}"));
  }

  @Test
  void anEmptySpecHasNoKey() {
    assertThatThrownBy(() -> NpxKey.of(" ")).isInstanceOf(IllegalArgumentException.class);
  }
}
