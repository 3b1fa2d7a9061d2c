package dev.kandev.recovery.activities.acp;

import java.util.Objects;

/**
 * What the agent host needs to know about this worker and the agents it may run.
 *
 * @param host this machine's name, recorded with each agent execution in {@code executors_running}
 * @param workerInstance this worker process, recorded likewise
 * @param permissions how the agents' {@code session/request_permission} requests are answered
 */
public record AgentHostSettings(
    String host, String workerInstance, AgentProfiles profiles, AcpTimeouts timeouts, PermissionPolicy permissions) {
  public AgentHostSettings {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(workerInstance, "workerInstance");
    Objects.requireNonNull(profiles, "profiles");
    Objects.requireNonNull(timeouts, "timeouts");
    Objects.requireNonNull(permissions, "permissions");
  }
}
