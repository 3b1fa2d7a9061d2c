package dev.kandev.recovery.workflows.client;

import dev.kandev.recovery.workflows.resume.ResumeFailure;

/** The resume failed; {@link #failure()} names the step, the failure type and the recovery actions. */
public final class ResumeFailedException extends RuntimeException {
  private final transient ResumeFailure failure;

  ResumeFailedException(ResumeFailure failure, Throwable cause) {
    super(failure.message(), cause);
    this.failure = failure;
  }

  public ResumeFailure failure() {
    return failure;
  }
}
