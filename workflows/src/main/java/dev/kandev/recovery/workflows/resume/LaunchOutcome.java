package dev.kandev.recovery.workflows.resume;

/** The agent runs and its provider-native session is loaded (or newly created). */
public record LaunchOutcome(String providerSessionId, boolean loaded, long pid, String agentName) {}
