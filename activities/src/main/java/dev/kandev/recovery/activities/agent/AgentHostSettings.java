package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.acp.AcpTimeouts;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import java.util.Map;
import java.util.Objects;

/**
 * What the agent host needs to know about this worker and the agents it may run.
 *
 * @param host this machine's name, recorded with each agent execution in {@code executors_running}
 * @param workerInstance this worker process, recorded likewise
 * @param permissions how the agents' {@code session/request_permission} requests are answered
 * @param inheritedEnvironment the worker's values of the few variables every agent inherits ({@link
 *     #inheritedFrom}); its {@code PATH} is also where an agent's program is looked up
 * @param commands the argv each launch starts for a profile (built-in npm agents: their installed
 *     bin or npx, see {@code NpmLaunch})
 */
public record AgentHostSettings(
    String host,
    String workerInstance,
    AgentProfiles profiles,
    AcpTimeouts timeouts,
    PermissionPolicy permissions,
    Map<String, String> inheritedEnvironment,
    AgentCommands commands) {
  public AgentHostSettings {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(workerInstance, "workerInstance");
    Objects.requireNonNull(profiles, "profiles");
    Objects.requireNonNull(timeouts, "timeouts");
    Objects.requireNonNull(permissions, "permissions");
    Objects.requireNonNull(inheritedEnvironment, "inheritedEnvironment");
    Objects.requireNonNull(commands, "commands");
    inheritedEnvironment = inheritedFrom(inheritedEnvironment);
  }

  /**
   * The non-secret variables a process needs to run at all ({@code PATH}, {@code HOME}, {@code
   * LANG}, {@code LC_ALL}, {@code TMPDIR}) of {@code workerEnvironment}; nothing else of the
   * worker's environment reaches an agent.
   */
  public static Map<String, String> inheritedFrom(Map<String, String> workerEnvironment) {
    return Map.copyOf(AgentEnvironment.build(workerEnvironment, Map.of(), Map.of()));
  }
}
