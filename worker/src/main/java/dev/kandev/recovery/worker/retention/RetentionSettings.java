package dev.kandev.recovery.worker.retention;

import dev.kandev.recovery.workflows.retention.RetentionPolicy;
import java.time.Duration;

/**
 * Retention's settings: the ages and batch of {@link RetentionPolicy} (KANDEV_RETENTION_*_DAYS,
 * KANDEV_RETENTION_BATCH_SIZE) and how often the schedule runs (KANDEV_RETENTION_INTERVAL_SECONDS).
 */
public record RetentionSettings(RetentionPolicy policy, Duration every) {
  public static final Duration DEFAULT_EVERY = Duration.ofDays(1);
}
