package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.retention.PruneBatch;
import org.jdbi.v3.core.Handle;

/**
 * The deletes of retention, each one batch on the caller's transaction. None touches a row a resume
 * reads: the rows of a session that is STARTING or under a resume lock are never candidates, rows
 * of a session that may still be resumed (anything but COMPLETED) keep its resume token and
 * transcript, and a candidate row someone else has locked is skipped ({@code SKIP LOCKED}), never
 * waited for.
 */
public final class RetentionStore {
  private static final String OLDER = " < now() - make_interval(days => :days)";
  /** Runtime update jobs that finished long ago; a job under way is never old enough to go. */
  private static final String RUNTIME_UPDATE_JOBS = "DELETE FROM runtime_update_jobs WHERE id IN (SELECT x.id"
      + " FROM runtime_update_jobs x WHERE x.status IN ('succeeded', 'failed') AND x.finished_at" + OLDER
      + " ORDER BY x.id LIMIT :limit FOR UPDATE SKIP LOCKED)";

  private final String sessionEvents;
  private final String sessionMessages;
  private final String executorsRunning;

  /** On our mirror. */
  public RetentionStore() {
    this(StoreLayout.MIRROR);
  }

  /**
   * In {@code layout}. On Kandev's own tables only our rows go: our events and our agent executions
   * ({@code kandev_agent_executions}); Kandev's transcript and {@code executors_running} are Kandev's
   * to keep or delete.
   */
  public RetentionStore(StoreLayout layout) {
    boolean kandev = layout.isKandev();
    String sessions = layout.kandevTable("task_sessions");
    // Kandev's completed_at is the naive UTC wall clock.
    String completedAt = kandev ? "(s.completed_at AT TIME ZONE 'UTC')" : "s.completed_at";
    // SQL: the session of the row aliased x is not in a resume (lock held, or STARTING).
    String notInAResume = "NOT EXISTS (SELECT 1 FROM resume_locks l WHERE l.session_id = x.session_id)"
        + " AND NOT EXISTS (SELECT 1 FROM " + sessions + " s WHERE s.id = x.session_id AND s.state = 'STARTING')";
    // State transitions: old ones, except the latest of each session that still exists (what its state
    // came from) and every one of a session in a resume (stale-STARTING recovery reads the one before).
    this.sessionEvents = "DELETE FROM session_events WHERE id IN (SELECT x.id FROM session_events x"
        + " WHERE x.at" + OLDER + " AND " + notInAResume
        + " AND (NOT EXISTS (SELECT 1 FROM " + sessions + " s WHERE s.id = x.session_id)"
        + " OR x.id < (SELECT max(latest.id) FROM session_events latest WHERE latest.session_id = x.session_id))"
        + " ORDER BY x.id LIMIT :limit FOR UPDATE SKIP LOCKED)";
    // Transcripts of sessions COMPLETED long ago (never resumed again); a resumable session replays
    // against its own. On Kandev's tables: none of ours.
    this.sessionMessages = kandev ? null : "DELETE FROM session_messages WHERE id IN (SELECT x.id FROM session_messages x"
        + " JOIN task_sessions s ON s.id = x.session_id"
        + " WHERE s.state = 'COMPLETED' AND s.completed_at" + OLDER + " AND x.created_at" + OLDER + " AND " + notInAResume
        + " ORDER BY x.id LIMIT :limit FOR UPDATE OF x SKIP LOCKED)";
    // Executor records (on our mirror: with the resume token) of sessions COMPLETED long ago whose
    // agent is no longer up.
    String executors = kandev ? "kandev_agent_executions" : "executors_running";
    this.executorsRunning = "DELETE FROM " + executors + " WHERE session_id IN (SELECT x.session_id"
        + " FROM " + executors + " x JOIN " + sessions + " s ON s.id = x.session_id"
        + " WHERE s.state = 'COMPLETED' AND " + completedAt + OLDER + " AND x.updated_at" + OLDER
        + " AND x.status IN ('stopped', 'completed', 'failed') AND " + notInAResume
        + " ORDER BY x.session_id LIMIT :limit FOR UPDATE OF x SKIP LOCKED)";
  }

  /** Deletes one batch; returns the rows deleted. */
  public int prune(Handle h, PruneBatch batch) {
    String sql = switch (batch.table()) {
      case SESSION_EVENTS -> sessionEvents;
      case SESSION_MESSAGES -> sessionMessages;
      case EXECUTORS_RUNNING -> executorsRunning;
      case RUNTIME_UPDATE_JOBS -> RUNTIME_UPDATE_JOBS;
    };
    if (sql == null) {
      return 0;
    }
    return h.createUpdate(sql).bind("days", batch.olderThanDays()).bind("limit", batch.limit()).execute();
  }
}
