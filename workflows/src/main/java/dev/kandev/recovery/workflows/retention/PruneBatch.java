package dev.kandev.recovery.workflows.retention;

/** One batch of one table: delete at most {@code limit} rows older than {@code olderThanDays} that nothing needs. */
public record PruneBatch(RetentionTable table, int olderThanDays, int limit) {}
