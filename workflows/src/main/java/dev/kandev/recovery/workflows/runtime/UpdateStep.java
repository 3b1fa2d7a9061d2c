package dev.kandev.recovery.workflows.runtime;

/** One run of the update command for a built-in agent; {@code attempt} is 1 or 2. */
public record UpdateStep(String jobId, String agentId, int attempt) {}
