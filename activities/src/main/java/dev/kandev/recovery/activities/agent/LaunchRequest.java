package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.workflows.model.Fence;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * What the resume workflow's launch step asks for.
 *
 * @param extraEnv credential environment for the child; values are secrets and never logged
 * @param fence the resume lock's fence, under which a session/new id replaces the stored token
 */
public record LaunchRequest(String sessionId, String agentId, Path workspace, Map<String, String> extraEnv, Fence fence) {
  public LaunchRequest {
    Objects.requireNonNull(sessionId, "sessionId");
    Objects.requireNonNull(agentId, "agentId");
    Objects.requireNonNull(workspace, "workspace");
    Objects.requireNonNull(fence, "fence");
    extraEnv = extraEnv == null ? Map.of() : Map.copyOf(extraEnv);
  }

  @Override
  public String toString() {
    return "LaunchRequest[sessionId=" + sessionId + ", agentId=" + agentId + ", workspace=" + workspace
        + ", extraEnvKeys=" + extraEnv.keySet().stream().sorted().toList() + ", fence=" + fence + "]";
  }
}
