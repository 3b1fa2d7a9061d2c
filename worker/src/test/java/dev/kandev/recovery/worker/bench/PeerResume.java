package dev.kandev.recovery.worker.bench;

import dev.kandev.recovery.workflows.resume.LaunchOutcome;

/** A way to run the resume that is not the product's (a peer library), as the benchmark drives it. */
public interface PeerResume extends AutoCloseable {
  /** Resumes a FAILED session with a stored token on {@code lane}; throws unless it settled. */
  LaunchOutcome resume(String sessionId, int lane);

  /** Resumes this instance ran to a settled session. */
  long runs();

  /**
   * Runs the peer's own records show succeeded, each with every step of the saga checkpointed;
   * throws on a run with fewer.
   */
  long checkpointedRuns();

  @Override
  void close();
}
