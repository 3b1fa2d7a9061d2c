package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.runtime.RuntimeJobSnapshot;
import java.time.Instant;

/**
 * A row of {@code runtime_update_jobs}: the job as the workflow saved it, and when the store saw it
 * start and finish ({@code finishedAt} is null until the job is terminal).
 */
public record RuntimeJobRecord(RuntimeJobSnapshot job, Instant startedAt, Instant finishedAt) {}
