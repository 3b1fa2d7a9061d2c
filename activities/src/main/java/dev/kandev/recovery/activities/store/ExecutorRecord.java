package dev.kandev.recovery.activities.store;

/** The runtime part of an {@code executors_running} row (the resume token is read through {@link SessionIdentityStore}). */
public record ExecutorRecord(
    String sessionId,
    String agentExecutionId,
    String host,
    String workerInstance,
    Long pid,
    String status,
    String errorMessage) {}
