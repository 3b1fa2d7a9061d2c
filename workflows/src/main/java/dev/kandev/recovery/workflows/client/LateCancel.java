package dev.kandev.recovery.workflows.client;

import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import java.util.Optional;

/**
 * A cancel that reached a resume once its settle completed does not undo it: Temporal ends the run
 * CANCELED (the Java SDK ends a workflow whose cancel is pending CANCELED, discarding its result),
 * yet the session resumed and the run's {@code KandevOutcome} says so (docs/contract.md, "Stopping a
 * resume"). A CANCELED run with any other outcome compensated.
 */
public final class LateCancel {
  private LateCancel() {}

  /** The outcome a CANCELED run's resume reached, given its {@code KandevOutcome}: empty if it compensated. */
  public static Optional<ResumeOutcome> standingOutcome(String kandevOutcome) {
    if (ResumeOutcome.RESUMED.name().equals(kandevOutcome)) {
      return Optional.of(ResumeOutcome.RESUMED);
    }
    if (ResumeOutcome.STARTED_FRESH.name().equals(kandevOutcome)) {
      return Optional.of(ResumeOutcome.STARTED_FRESH);
    }
    return Optional.empty();
  }
}
