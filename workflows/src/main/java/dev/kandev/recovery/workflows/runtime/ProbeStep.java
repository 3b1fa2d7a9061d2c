package dev.kandev.recovery.workflows.runtime;

/** Start the agent from its runtime and run ACP {@code initialize}. */
public record ProbeStep(String jobId, String agentId) {}
