package dev.kandev.recovery.workflows.runtime;

/** Which directory the repair targeted and whether it existed (and was removed). */
public record RepairOutcome(String cacheRoot, String key, String target, boolean removed) {}
