package dev.kandev.recovery.workflows.runtime;

/** What the agent answered to ACP {@code initialize} during the capability probe. */
public record ProbeInfo(String agentName, String agentVersion, int protocolVersion, boolean loadSession) {}
