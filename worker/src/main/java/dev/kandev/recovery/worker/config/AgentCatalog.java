package dev.kandev.recovery.worker.config;

import dev.kandev.recovery.activities.agent.AgentProfile;
import dev.kandev.recovery.activities.agent.AgentProfiles;
import dev.kandev.recovery.activities.runtime.NpmSettings;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The agent profiles a worker launches: every built-in npm agent with its normal launch command
 * ({@code npx --yes --prefer-offline <spec> <ACP args>}, which never repairs caches) and the agent it
 * is, so each launch may start the installed bin instead ({@code NpmLaunch}); then the profiles of
 * {@code KANDEV_AGENTS_FILE}, which win on equal ids and are always started exactly as configured.
 */
public final class AgentCatalog {
  private AgentCatalog() {}

  public static AgentProfiles load(BuiltInAgents builtIns, NpmSettings npm, Path agentsFile) {
    Map<String, AgentProfile> profiles = new LinkedHashMap<>();
    builtIns.all().forEach(agent -> profiles.put(agent.agentId(), new AgentProfile(
        agent.agentId(), npm.launchCommand(agent.packageSpec(), agent.acpArgs()), npm.environment(), null, agent)));
    if (agentsFile != null) {
      try {
        AgentProfiles configured = AgentProfiles.fromJson(Files.readString(agentsFile));
        configured.ids().forEach(id -> profiles.put(id, configured.get(id)));
      } catch (IOException e) {
        throw new IllegalArgumentException("KANDEV_AGENTS_FILE " + agentsFile + " cannot be read: " + e.getMessage(), e);
      }
    }
    return new AgentProfiles(profiles.values());
  }
}
