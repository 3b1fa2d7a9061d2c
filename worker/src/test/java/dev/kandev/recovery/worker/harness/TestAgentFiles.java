package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.TestAgent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The project's test agent as the packaged jar's processes run it, in a test's folder: its profile
 * on each executor host (a {@code KANDEV_AGENTS_FILE}), the mode file each agent process reads at its
 * start, the sessions they share, and the launch log they all write.
 */
public final class TestAgentFiles {
  private final Path dir;

  public TestAgentFiles(Path dir) {
    this.dir = dir;
  }

  /** The mode the next agent process starts in ({@code hold-initialize} holds it in ACP initialize). */
  public void mode(String mode) {
    write(modeFile(), mode);
  }

  /** The file {@link #mode} writes. */
  public Path modeFile() {
    return dir.resolve("agent-mode");
  }

  /** Writes the agent's profile on {@code host} to the folder's {@code fileName} and returns that file. */
  public Path profile(String fileName, String host) {
    Path file = dir.resolve(fileName);
    write(file, """
        {"%s": {"argv": ["node", "%s", "--mode-file=%s"], "env": {"KANDEV_TEST_AGENT_STATE_DIR": "%s",
          "KANDEV_TEST_AGENT_HOST": "%s", "KANDEV_TEST_AGENT_LAUNCH_LOG": "%s"}}}
        """.formatted(TestAgent.AGENT_ID, TestAgent.script(), modeFile(), dir.resolve("agent-state"), host, launchLog()));
    return file;
  }

  /** Each line of the launch log read as {@code type}, in the order the agents wrote them. */
  public <T> List<T> events(Class<T> type) {
    try {
      if (!Files.exists(launchLog())) {
        return List.of();
      }
      List<T> events = new ArrayList<>();
      for (String line : Files.readAllLines(launchLog())) {
        events.add(Json.mapper().readValue(line, type));
      }
      return events;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path launchLog() {
    return dir.resolve("agent-launches.jsonl");
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
