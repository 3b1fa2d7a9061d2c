package dev.kandev.recovery.workflows.retention;

/**
 * How old a row must be before retention deletes it, per table, in days (the worker's KANDEV_RETENTION_*
 * settings; the schedule's action carries them, so the Web UI shows them), and the rows per batch.
 */
public record RetentionPolicy(int sessionEventsDays, int sessionMessagesDays, int executorsRunningDays,
    int runtimeUpdateJobsDays, int batchSize) {
  public static final RetentionPolicy DEFAULT = new RetentionPolicy(90, 180, 30, 30, 500);

  public RetentionPolicy {
    if (sessionEventsDays < 1 || sessionMessagesDays < 1 || executorsRunningDays < 1 || runtimeUpdateJobsDays < 1) {
      throw new IllegalArgumentException("retention ages must be at least 1 day");
    }
    if (batchSize < 1 || batchSize > 10_000) {
      throw new IllegalArgumentException("the retention batch size must be 1..10000, got " + batchSize);
    }
  }

  public int days(RetentionTable table) {
    return switch (table) {
      case SESSION_EVENTS -> sessionEventsDays;
      case SESSION_MESSAGES -> sessionMessagesDays;
      case EXECUTORS_RUNNING -> executorsRunningDays;
      case RUNTIME_UPDATE_JOBS -> runtimeUpdateJobsDays;
    };
  }
}
