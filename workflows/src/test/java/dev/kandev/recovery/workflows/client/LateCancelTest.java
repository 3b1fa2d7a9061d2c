package dev.kandev.recovery.workflows.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import org.junit.jupiter.api.Test;

class LateCancelTest {
  @Test
  void onlyAResumedOutcomeStandsOnACanceledRun() {
    assertThat(LateCancel.standingOutcome("RESUMED")).contains(ResumeOutcome.RESUMED);
    assertThat(LateCancel.standingOutcome("STARTED_FRESH")).contains(ResumeOutcome.STARTED_FRESH);
    assertThat(LateCancel.standingOutcome("CANCELLED")).isEmpty();
    assertThat(LateCancel.standingOutcome("FAILED")).isEmpty();
    assertThat(LateCancel.standingOutcome(null)).isEmpty();
  }
}
