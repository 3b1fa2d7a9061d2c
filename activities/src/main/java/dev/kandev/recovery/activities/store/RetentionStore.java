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
  /** SQL: the session of the row aliased {@code x} is not in a resume (lock held, or STARTING). */
  private static final String NOT_IN_A_RESUME = "NOT EXISTS (SELECT 1 FROM resume_locks l WHERE l.session_id = x.session_id)"
      + " AND NOT EXISTS (SELECT 1 FROM task_sessions s WHERE s.id = x.session_id AND s.state = 'STARTING')";
  private static final String OLDER = " < now() - make_interval(days => :days)";

  /**
   * State transitions: old ones, except the latest of each session that still exists (what its state
   * came from) and every one of a session in a resume (stale-STARTING recovery reads the one before).
   */
  private static final String SESSION_EVENTS = "DELETE FROM session_events WHERE id IN (SELECT x.id FROM session_events x"
      + " WHERE x.at" + OLDER + " AND " + NOT_IN_A_RESUME
      + " AND (NOT EXISTS (SELECT 1 FROM task_sessions s WHERE s.id = x.session_id)"
      + " OR x.id < (SELECT max(latest.id) FROM session_events latest WHERE latest.session_id = x.session_id))"
      + " ORDER BY x.id LIMIT :limit FOR UPDATE SKIP LOCKED)";
  /** Transcripts of sessions COMPLETED long ago (never resumed again); a resumable session replays against its own. */
  private static final String SESSION_MESSAGES = "DELETE FROM session_messages WHERE id IN (SELECT x.id FROM session_messages x"
      + " JOIN task_sessions s ON s.id = x.session_id"
      + " WHERE s.state = 'COMPLETED' AND s.completed_at" + OLDER + " AND x.created_at" + OLDER + " AND " + NOT_IN_A_RESUME
      + " ORDER BY x.id LIMIT :limit FOR UPDATE OF x SKIP LOCKED)";
  /** Executor records (the resume token) of sessions COMPLETED long ago whose agent is no longer up. */
  private static final String EXECUTORS_RUNNING = "DELETE FROM executors_running WHERE session_id IN (SELECT x.session_id"
      + " FROM executors_running x JOIN task_sessions s ON s.id = x.session_id"
      + " WHERE s.state = 'COMPLETED' AND s.completed_at" + OLDER + " AND x.updated_at" + OLDER
      + " AND x.status IN ('stopped', 'completed', 'failed') AND " + NOT_IN_A_RESUME
      + " ORDER BY x.session_id LIMIT :limit FOR UPDATE OF x SKIP LOCKED)";
  /** Runtime update jobs that finished long ago; a job under way is never old enough to go. */
  private static final String RUNTIME_UPDATE_JOBS = "DELETE FROM runtime_update_jobs WHERE id IN (SELECT x.id"
      + " FROM runtime_update_jobs x WHERE x.status IN ('succeeded', 'failed') AND x.finished_at" + OLDER
      + " ORDER BY x.id LIMIT :limit FOR UPDATE SKIP LOCKED)";

  /** Deletes one batch; returns the rows deleted. */
  public int prune(Handle h, PruneBatch batch) {
    String sql = switch (batch.table()) {
      case SESSION_EVENTS -> SESSION_EVENTS;
      case SESSION_MESSAGES -> SESSION_MESSAGES;
      case EXECUTORS_RUNNING -> EXECUTORS_RUNNING;
      case RUNTIME_UPDATE_JOBS -> RUNTIME_UPDATE_JOBS;
    };
    return h.createUpdate(sql).bind("days", batch.olderThanDays()).bind("limit", batch.limit()).execute();
  }
}
