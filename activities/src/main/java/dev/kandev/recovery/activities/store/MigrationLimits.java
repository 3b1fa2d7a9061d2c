package dev.kandev.recovery.activities.store;

import java.time.Duration;

/**
 * The limits of the connections schema migrations run on, apart from the store's pool and its
 * {@link Database#LOCK_TIMEOUT} and {@link Database#STATEMENT_TIMEOUT}: an expand migration on a large
 * table (an index, a backfill) may run for minutes, and its ALTER waits behind the row locks of running
 * resumes. Both are whole seconds.
 *
 * @param lockTimeout how long one migration statement waits for a lock a running transaction holds;
 *     meanwhile the statements queued behind it on that table wait too (the store's own give up after
 *     {@link Database#LOCK_TIMEOUT} and are retried)
 * @param statementTimeout how long one migration statement runs at most; also how long a starting
 *     worker waits for another worker's migrations (Flyway's lock, tried once a second)
 */
public record MigrationLimits(Duration lockTimeout, Duration statementTimeout) {
  public static final MigrationLimits DEFAULT = new MigrationLimits(Duration.ofSeconds(60), Duration.ofHours(1));
  /** What a migration connection calls itself in {@code pg_stat_activity}. */
  public static final String APPLICATION_NAME = "kandev-recovery migration";

  public MigrationLimits {
    if (lockTimeout.toSeconds() < 1 || statementTimeout.toSeconds() < 1) {
      throw new IllegalArgumentException("migration limits must be at least 1 s, got lock timeout "
          + lockTimeout.toSeconds() + " s and statement timeout " + statementTimeout.toSeconds() + " s");
    }
  }

  /** The limits as PostgreSQL's connection options: set at the start of every migration connection. */
  String connectionOptions() {
    return "-c lock_timeout=" + lockTimeout.toSeconds() + "s -c statement_timeout=" + statementTimeout.toSeconds() + "s";
  }

  /** Flyway's tries, one a second, for the lock another worker's migrations hold. */
  int lockTries() {
    return (int) Math.min(Integer.MAX_VALUE, statementTimeout.toSeconds());
  }
}
