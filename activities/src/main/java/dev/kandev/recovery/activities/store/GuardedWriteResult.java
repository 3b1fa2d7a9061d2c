package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.SessionState;

/** What a state-guarded metadata write did, and the state it found. */
public record GuardedWriteResult(TransitionResult.Outcome outcome, SessionState state) {
  public boolean applied() {
    return outcome == TransitionResult.Outcome.APPLIED;
  }
}
