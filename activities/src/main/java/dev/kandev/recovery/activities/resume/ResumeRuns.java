package dev.kandev.recovery.activities.resume;

/**
 * Whether the resume run a lock owner names ({@code ResumeLockOwner}) has ended. Asked only off the
 * common path: when a lock is held by another run, and before a settle takes back a lock its run
 * released. A run this cannot find out about (no answer from Temporal) counts as not ended, so an
 * unknown never frees a lock that a running resume holds.
 */
@FunctionalInterface
public interface ResumeRuns {
  boolean hasEnded(String owner);
}
