package dev.kandev.recovery.worker.tracing;

/** The attribute names of the Temporal spans, the ones the Go SDK's tracing interceptor uses. */
final class TemporalSpans {
  static final String WORKFLOW_ID = "temporalWorkflowID";
  static final String RUN_ID = "temporalRunID";
  static final String ACTIVITY_ID = "temporalActivityID";
  static final String ATTEMPT = "temporalAttempt";
  static final String LOCAL = "temporalLocalActivity";

  private TemporalSpans() {}
}
