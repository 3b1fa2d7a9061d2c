package dev.kandev.recovery.activities.agent;

/**
 * A finished prompt turn, whose messages were persisted before the session settled.
 *
 * @param stopReason the agent's {@code stopReason} ({@code end_turn}, {@code cancelled}, ...)
 * @param responseText the agent's reply text of this turn
 */
public record TurnResult(String stopReason, String responseText, int messagesPersisted) {}
