package dev.kandev.recovery.workflows.resume;

/** The steps of a resume, in order; the {@code currentStep} query reports one of them. */
public enum ResumeStep {
  ACQUIRE_LOCK,
  READ_CONTEXT,
  CLEAR_IDENTITY,
  MARK_STARTING,
  ISSUE_CREDENTIAL_LEASE,
  PERSIST_CREDENTIAL_SNAPSHOT,
  LAUNCH_AGENT,
  SETTLE_SESSION,
  COMPENSATE,
  RELEASE_LOCK,
  DONE
}
