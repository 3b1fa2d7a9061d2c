package dev.kandev.recovery.worker.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeStep;

/** What a resume reports when the worker running its launch was lost (killed, stalled, replaced). */
public final class LostLaunch {
  private LostLaunch() {}

  /**
   * The launch's heartbeat timed out and is not retried by itself: the resume failed at
   * LAUNCH_AGENT, the session is FAILED again, and a Resume is offered.
   */
  public static void assertFailedOnItsHeartbeat(ResumeFailure failure) {
    assertThat(failure.step()).isEqualTo(ResumeStep.LAUNCH_AGENT);
    assertThat(failure.failureType()).isEqualTo("ACTIVITY_TIMEOUT_HEARTBEAT");
    assertThat(failure.sessionState()).isEqualTo(SessionState.FAILED);
    assertThat(failure.recoveryActions()).contains(ResumeMode.RESUME);
  }
}
