package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.workflows.runtime.AgentRuntime;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How to start one agent: the argv (no shell), the environment entries the profile adds, and an
 * optional working directory ({@code null}: the session's workspace).
 *
 * @param builtIn the built-in npm agent this profile starts, whose {@code argv} is then its npx
 *     command; the launch may start the agent's installed bin instead ({@link AgentCommands}).
 *     {@code null} for a configured profile, which is always started exactly as configured.
 */
public record AgentProfile(
    String agentId, List<String> argv, Map<String, String> env, Path workingDirectory, AgentRuntime builtIn) {
  /** A configured profile: started exactly as given. */
  public AgentProfile(String agentId, List<String> argv, Map<String, String> env, Path workingDirectory) {
    this(agentId, argv, env, workingDirectory, null);
  }

  public AgentProfile {
    Objects.requireNonNull(agentId, "agentId");
    if (agentId.isBlank()) {
      throw new IllegalArgumentException("an agent profile needs an agent id");
    }
    if (argv == null || argv.isEmpty() || argv.get(0).isBlank()) {
      throw new IllegalArgumentException("agent profile '" + agentId + "' needs a non-empty argv");
    }
    argv = List.copyOf(argv);
    env = env == null ? Map.of() : Map.copyOf(env);
  }

  /** The directory the child starts in. */
  public Path workingDirectoryFor(Path workspace) {
    return workingDirectory != null ? workingDirectory : workspace;
  }

  /** Never prints env values: they may be secrets. */
  @Override
  public String toString() {
    return "AgentProfile[agentId=" + agentId + ", argv=" + argv + ", envKeys=" + env.keySet().stream().sorted().toList()
        + ", workingDirectory=" + workingDirectory + (builtIn == null ? "" : ", builtIn=" + builtIn.packageSpec()) + "]";
  }
}
