package dev.kandev.recovery.workflows.runtime;

/** Invalidate the {@code _npx} execution tree of one built-in agent's package. */
public record RepairStep(String jobId, String agentId) {}
