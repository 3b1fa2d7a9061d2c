package dev.kandev.recovery.workflows.resume;

/** How a resume ended; also the {@code KandevOutcome} search attribute. */
public enum ResumeOutcome {
  /** The stored provider-native session was loaded. */
  RESUMED,
  /** A new provider-native session was created (Start fresh, or a session that never had one). */
  STARTED_FRESH,
  /**
   * The resume failed: the session was restored to its prior recoverable state, or the request was
   * refused before anything changed (unknown session, not resumable, ...; the failure's {@code
   * sessionState} is then null).
   */
  FAILED,
  /** Only on resumes from before version {@code one-failed-outcome}: refused before anything changed; now FAILED. */
  REJECTED
}
