package dev.kandev.recovery.workflows.retention;

import java.util.Map;

/**
 * What one retention run deleted, per table, and whether a table had more to delete than one run's
 * batches (the next run goes on).
 */
public record RetentionResult(Map<RetentionTable, Long> deleted, boolean more) {}
