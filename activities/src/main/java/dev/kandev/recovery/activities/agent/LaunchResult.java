package dev.kandev.recovery.activities.agent;

/**
 * A launched agent serving its session.
 *
 * @param loaded true if the stored token was loaded with session/load, false for a session/new
 * @param replayedMessages history messages the agent replayed during session/load
 */
public record LaunchResult(
    String providerSessionId,
    boolean loaded,
    long pid,
    String executionId,
    String agentName,
    String agentVersion,
    int replayedMessages) {}
