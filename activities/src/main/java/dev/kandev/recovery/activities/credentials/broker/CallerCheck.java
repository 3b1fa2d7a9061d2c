package dev.kandev.recovery.activities.credentials.broker;

/**
 * Whether the process that asks to redeem a lease is the agent the lease was handed to, or one of
 * that agent's descendants (git, its credential helper, curl). The redemption endpoint makes one
 * per request from the caller's connection.
 */
@FunctionalInterface
public interface CallerCheck {
  /** Accepts every caller: for a platform that cannot say which process is on the other end. */
  CallerCheck ANYONE = sessionId -> true;

  /** Whether the caller runs in the process tree of session {@code sessionId}'s agent on this worker. */
  boolean isAgentOf(String sessionId);
}
