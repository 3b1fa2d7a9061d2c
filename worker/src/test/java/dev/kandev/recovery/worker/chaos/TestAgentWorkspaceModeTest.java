package dev.kandev.recovery.worker.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestAgent;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test agent's parts the campaign uses: a mode per workspace, and an agent slow to start. */
class TestAgentWorkspaceModeTest {
  @TempDir Path workspace;

  @Test
  void theWorkspacesModeFileWinsAndASlowHandshakeAnswersThatLate() throws Exception {
    Files.writeString(workspace.resolve(".kandev-test-agent-mode"), "slow-handshake:800");
    Process agent = new ProcessBuilder("node", TestAgent.script().toString(), "--mode=normal", "--workspace-mode")
        .directory(workspace.toFile()).redirectError(workspace.resolve("stderr").toFile()).start();
    try (OutputStream in = agent.getOutputStream();
        BufferedReader out = new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8))) {
      long sent = System.nanoTime();
      in.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n"
          .getBytes(StandardCharsets.UTF_8));
      in.flush();
      String answer = out.readLine();
      long tookMs = (System.nanoTime() - sent) / 1_000_000;

      assertThat(answer).contains("\"id\":1", "\"protocolVersion\":1");
      assertThat(tookMs).as("answered after the configured 800 ms").isGreaterThanOrEqualTo(800);
    } finally {
      agent.waitFor(10, TimeUnit.SECONDS);
      agent.destroyForcibly();
    }
    assertThat(Files.readString(workspace.resolve("stderr"))).contains("mode=slow-handshake:800");
  }

  @Test
  void withoutTheFlagTheWorkspacesModeFileIsIgnored() throws Exception {
    Files.writeString(workspace.resolve(".kandev-test-agent-mode"), "exit-before-initialize");
    Process agent = new ProcessBuilder("node", TestAgent.script().toString(), "--mode=normal")
        .directory(workspace.toFile()).redirectError(workspace.resolve("stderr").toFile()).start();
    agent.getOutputStream().close();
    assertThat(agent.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(workspace.resolve("stderr"))).contains("mode=normal").doesNotContain("exiting before");
  }
}
