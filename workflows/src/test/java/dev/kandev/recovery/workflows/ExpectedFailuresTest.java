package dev.kandev.recovery.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.api.enums.v1.RetryState;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TimeoutFailure;
import org.junit.jupiter.api.Test;

class ExpectedFailuresTest {
  private static ActivityFailure activityFailed(Throwable cause) {
    return new ActivityFailure("activity failed", 5, 6, "ReadResumeContext", "1", RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE,
        "worker", cause);
  }

  @Test
  void expectedFailuresAreBenignWithTheirTypeAndRetryability() {
    ApplicationFailure notFound = ExpectedFailures.nonRetryable("unknown session 's1'", "SESSION_NOT_FOUND");
    ApplicationFailure lockHeld = ExpectedFailures.retryable("held by another resume", "RESUME_LOCK_HELD");

    assertThat(notFound.getCategory()).isEqualTo(ApplicationErrorCategory.BENIGN);
    assertThat(notFound.isNonRetryable()).isTrue();
    assertThat(notFound.getType()).isEqualTo("SESSION_NOT_FOUND");
    assertThat(lockHeld.getCategory()).isEqualTo(ApplicationErrorCategory.BENIGN);
    assertThat(lockHeld.isNonRetryable()).isFalse();
    assertThat(ExpectedFailures.isExpected(activityFailed(notFound))).isTrue();
  }

  @Test
  void aFailureCausedByAFaultIsNotExpected() {
    ActivityFailure timedOut = activityFailed(new TimeoutFailure("timed out", null, TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE));
    ActivityFailure crashed = activityFailed(ApplicationFailure.newFailure("connection refused", "StoreException"));
    ActivityFailure refused = activityFailed(ExpectedFailures.nonRetryable("exited", "AGENT_EXITED_BEFORE_INITIALIZE"));

    assertThat(ExpectedFailures.nonRetryableWithCause("resume failed", "ACTIVITY_TIMEOUT_START_TO_CLOSE", timedOut)
        .getCategory()).isEqualTo(ApplicationErrorCategory.UNSPECIFIED);
    assertThat(ExpectedFailures.nonRetryableAfter(crashed, "update failed", "UPDATE_FAILED").getCategory())
        .isEqualTo(ApplicationErrorCategory.UNSPECIFIED);
    assertThat(ExpectedFailures.nonRetryableWithCause("resume failed", "AGENT_EXITED_BEFORE_INITIALIZE", refused)
        .getCategory()).isEqualTo(ApplicationErrorCategory.BENIGN);
    assertThat(ExpectedFailures.isExpected(new IllegalStateException("bug"))).isFalse();
  }
}
