package dev.kandev.recovery.workflows.client;

import java.time.Instant;

/**
 * One resume as {@code kandev-recovery resumes} lists it.
 *
 * @param status the run's Temporal status: {@code RUNNING}, {@code COMPLETED}, {@code FAILED},
 *     {@code CANCELED}, {@code TERMINATED}, {@code TIMED_OUT}
 * @param outcome {@code KandevOutcome}; null while running
 * @param step where it is (running), where it failed (failed), {@code DONE} (completed); null when
 *     not known (terminated)
 * @param closed null while running
 */
public record ResumeSummary(
    String workflowId, String runId, String status, String sessionId, String taskId, String outcome, String step,
    Instant started, Instant closed) {}
