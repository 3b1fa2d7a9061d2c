package dev.kandev.recovery.activities.testing;

import dev.kandev.recovery.activities.agent.AgentProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Profiles that launch the project's fault-injecting ACP test agent ({@code test-agent/} at the
 * repository root) as a real child process, and a look at the sessions it keeps in its state dir.
 */
public final class TestAgent {
  public static final String AGENT_ID = "test-agent";

  private TestAgent() {}

  /** The agent's entry file; surefire runs with the module directory as working directory. */
  public static Path script() {
    Path script = Path.of("..", "test-agent", "bin", "kandev-test-agent.js").toAbsolutePath().normalize();
    if (!Files.isRegularFile(script)) {
      throw new IllegalStateException("test agent not found at " + script);
    }
    return script;
  }

  /** A profile for {@code mode} keeping its sessions in {@code stateDir}, with extra flags. */
  public static AgentProfile profile(String mode, Path stateDir, String... flags) {
    return profile(mode, stateDir, Map.of(), flags);
  }

  public static AgentProfile profile(String mode, Path stateDir, Map<String, String> env, String... flags) {
    Map<String, String> all = new LinkedHashMap<>(env);
    all.put("KANDEV_TEST_AGENT_STATE_DIR", stateDir.toString());
    List<String> argv = Stream.concat(
        Stream.of("node", script().toString(), "--mode=" + mode), Stream.of(flags)).toList();
    return new AgentProfile(AGENT_ID, argv, all, null);
  }

  /**
   * A profile that reads its mode from {@code modeFile} at each start, so a test can break the next
   * process of the same profile and heal it again.
   */
  public static AgentProfile switchable(Path modeFile, Path stateDir) {
    return new AgentProfile(AGENT_ID, List.of("node", script().toString(), "--mode-file=" + modeFile),
        Map.of("KANDEV_TEST_AGENT_STATE_DIR", stateDir.toString()), null);
  }

  /** Ids of the sessions the agent has stored. */
  public static List<String> storedSessions(Path stateDir) {
    if (!Files.isDirectory(stateDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(stateDir)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".json"))
          .map(n -> n.substring(0, n.length() - ".json".length()))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
