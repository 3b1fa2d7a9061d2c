package dev.kandev.recovery.activities.testing;

import dev.kandev.recovery.workflows.model.SessionState;

/**
 * Rows of every kind retention meets, most of them a year old: what it must delete and what it must
 * keep no matter the age. {@link #DELETABLE} rows go; {@link #assertKept} names the rest.
 */
public final class RetentionWorld {
  /** The rows a prune with ages under a year deletes. */
  public static final int DELETABLE = 11;
  private final Fixtures fixtures;

  public RetentionWorld(Fixtures fixtures) {
    this.fixtures = fixtures;
  }

  public RetentionWorld create() {
    // COMPLETED a year ago: everything goes except its latest event.
    session("done-old", SessionState.COMPLETED, "400 days").events("done-old", 3, "400 days")
        .messages("done-old", 2, "400 days").executor("done-old", "stopped", "400 days");
    // Resumable (IDLE): its old transitions go but the latest; its transcript and resume token stay.
    session("live-old", SessionState.IDLE, null).events("live-old", 3, "400 days")
        .messages("live-old", 2, "400 days").executor("live-old", "stopped", "400 days");
    // In a resume (STARTING, or a held lock): nothing of it goes.
    session("starting", SessionState.STARTING, null).events("starting", 3, "400 days");
    session("locked", SessionState.FAILED, null).events("locked", 3, "400 days");
    fixtures.exec("INSERT INTO resume_locks (session_id, owner, fencing_token, expires_at)"
        + " VALUES ('locked', 'a-resume', nextval('resume_lock_fencing_seq'), now() + interval '15 minutes')");
    // COMPLETED just now: too young.
    session("done-new", SessionState.COMPLETED, "1 minute").events("done-new", 2, "1 minute")
        .messages("done-new", 1, "1 minute").executor("done-new", "stopped", "1 minute");
    // Events of a deleted session: all go.
    events("deleted", 2, "400 days");
    // Runtime update jobs: finished long ago go (2), under way or recent stay.
    job("job-succeeded-old", "succeeded", "400 days");
    job("job-failed-old", "failed", "400 days");
    job("job-updating-old", "updating", null);
    job("job-failed-new", "failed", "1 minute");
    return this;
  }

  /** What no prune may delete, whatever the ages (of at least a day). */
  public void assertKept() {
    expect("SELECT count(*) FROM session_events WHERE session_id = 'done-old'", 1);
    expect("SELECT count(*) FROM session_events WHERE session_id = 'done-old' AND reason = 'event 3'", 1);
    expect("SELECT count(*) FROM session_events WHERE session_id = 'live-old'", 1);
    expect("SELECT count(*) FROM session_messages WHERE session_id = 'live-old'", 2);
    expect("SELECT count(*) FROM executors_running WHERE session_id = 'live-old' AND resume_token = 'token-live-old'", 1);
    expect("SELECT count(*) FROM session_events WHERE session_id = 'starting'", 3);
    expect("SELECT count(*) FROM session_events WHERE session_id = 'locked'", 3);
    expect("SELECT count(*) FROM session_events WHERE session_id = 'done-new'", 2);
    expect("SELECT count(*) FROM session_messages WHERE session_id = 'done-new'", 1);
    expect("SELECT count(*) FROM executors_running WHERE session_id = 'done-new'", 1);
    expect("SELECT count(*) FROM runtime_update_jobs WHERE id IN ('job-updating-old', 'job-failed-new')", 2);
  }

  /** Everything deletable went. */
  public void assertPruned() {
    expect("SELECT count(*) FROM session_events WHERE session_id = 'deleted'", 0);
    expect("SELECT count(*) FROM session_messages WHERE session_id = 'done-old'", 0);
    expect("SELECT count(*) FROM executors_running WHERE session_id = 'done-old'", 0);
    expect("SELECT count(*) FROM runtime_update_jobs WHERE id IN ('job-succeeded-old', 'job-failed-old')", 0);
  }

  public long rows() {
    return fixtures.count("SELECT (SELECT count(*) FROM session_events) + (SELECT count(*) FROM session_messages)"
        + " + (SELECT count(*) FROM executors_running) + (SELECT count(*) FROM runtime_update_jobs)");
  }

  private void expect(String sql, long rows) {
    long actual = fixtures.count(sql);
    if (actual != rows) {
      throw new AssertionError(sql + ": expected " + rows + " rows, found " + actual);
    }
  }

  private RetentionWorld session(String id, SessionState state, String completedAgo) {
    fixtures.task("t-" + id, "ws-1", "REVIEW").session(id, "t-" + id, "test-agent", state, "{}");
    if (completedAgo != null) {
      fixtures.exec("UPDATE task_sessions SET completed_at = now() - ?::interval WHERE id = ?", completedAgo, id);
    }
    return this;
  }

  private RetentionWorld events(String sessionId, int count, String ago) {
    for (int i = 1; i <= count; i++) {
      fixtures.exec("INSERT INTO session_events (session_id, task_id, from_state, to_state, reason, at)"
          + " VALUES (?, ?, 'CREATED', 'IDLE', ?, now() - ?::interval)", sessionId, "t-" + sessionId, "event " + i, ago);
    }
    return this;
  }

  private RetentionWorld messages(String sessionId, int count, String ago) {
    for (int i = 1; i <= count; i++) {
      fixtures.exec("INSERT INTO session_messages (session_id, ordinal, role, content, dedupe_key, created_at)"
          + " VALUES (?, ?, 'agent', 'hello', ?, now() - ?::interval)", sessionId, i, "m-" + i, ago);
    }
    return this;
  }

  private RetentionWorld executor(String sessionId, String status, String ago) {
    fixtures.exec("INSERT INTO executors_running (session_id, task_id, agent_id, resume_token, status, updated_at)"
        + " VALUES (?, ?, 'test-agent', ?, ?, now() - ?::interval)", sessionId, "t-" + sessionId, "token-" + sessionId,
        status, ago);
    return this;
  }

  private void job(String id, String status, String finishedAgo) {
    fixtures.exec("INSERT INTO runtime_update_jobs (id, workflow_id, agent_id, package_spec, status, started_at, finished_at)"
        + " VALUES (?, ?, 'test-agent', 'pkg@1', ?, now() - interval '400 days', now() - ?::interval)", id, "wf-" + id,
        status, finishedAgo);
  }
}
