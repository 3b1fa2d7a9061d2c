package dev.kandev.recovery.activities.resume;

import dev.kandev.recovery.workflows.ExpectedFailures;
import io.temporal.failure.ApplicationFailure;

/** The stable failure types of the resume activities, and how they are raised: expected, so benign. */
final class Failures {
  static final String SESSION_NOT_FOUND = "SESSION_NOT_FOUND";
  static final String SESSION_NOT_RESUMABLE = "SESSION_NOT_RESUMABLE";
  static final String SESSION_STATE_SUPERSEDED = "SESSION_STATE_SUPERSEDED";
  static final String AGENT_UNKNOWN = "AGENT_UNKNOWN";
  static final String AGENT_ALREADY_RUNNING = "AGENT_ALREADY_RUNNING";
  static final String RESUME_LOCK_HELD = "RESUME_LOCK_HELD";
  static final String RESUME_LOCK_LOST = "RESUME_LOCK_LOST";
  static final String INVALID_REQUEST = "INVALID_REQUEST";

  private Failures() {}

  /** Retrying cannot help: the user has to act (or nothing should happen). */
  static ApplicationFailure permanent(String type, String message) {
    return ExpectedFailures.nonRetryable(message, type);
  }

  /** Temporal's retry policy of the activity applies. */
  static ApplicationFailure transientFailure(String type, String message) {
    return ExpectedFailures.retryable(message, type);
  }
}
