package dev.kandev.recovery.workflows.runtime;

import java.util.List;

/**
 * Trusted metadata of one npm-distributed agent: the exact package spec npm installs, the
 * binary that package provides and the arguments that put it in ACP mode. Callers never supply
 * these; they name an agent id and this record is looked up in {@link BuiltInAgents}.
 */
public record AgentRuntime(String agentId, String packageSpec, String binary, List<String> acpArgs) {
  public AgentRuntime {
    require(agentId != null && agentId.matches("[a-z0-9][a-z0-9-]{0,62}"), "agent id '" + agentId + "'");
    require(packageSpec != null && !packageSpec.isBlank() && packageSpec.equals(packageSpec.strip()),
        "package spec of " + agentId);
    require(packageSpec.indexOf('\0') < 0 && !packageSpec.contains(".."), "package spec '" + packageSpec + "'");
    require(!packageSpec.startsWith("-") && !packageSpec.startsWith("/") && !packageSpec.startsWith("."),
        "package spec '" + packageSpec + "' (must be a registry spec, not an option or a path)");
    require(binary != null && !binary.isBlank(), "binary of " + agentId);
    acpArgs = List.copyOf(acpArgs);
  }

  private static void require(boolean valid, String what) {
    if (!valid) {
      throw new IllegalArgumentException("invalid " + what);
    }
  }
}
