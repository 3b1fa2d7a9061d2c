package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.SessionState;

/**
 * What a guarded transition did: whether it won, the state it found and the state the session is in
 * now (the target when it won, the winner's state when it lost).
 */
public record TransitionResult(Outcome outcome, SessionState before, SessionState now) {
  public enum Outcome {
    /** The session was in an expected state and now is in the target state. */
    APPLIED,
    /** The session was not in an expected state; nothing was written. */
    STATE_MISMATCH,
    /** A newer resume lock holder exists; nothing was written. */
    FENCED
  }

  public boolean won() {
    return outcome == Outcome.APPLIED;
  }
}
