package dev.kandev.recovery.activities.store.kandev;

import static dev.kandev.recovery.activities.store.kandev.KandevTables.UTC_NOW;

import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.MirrorExecutorsRunningStore;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.workflows.model.Fence;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Our agent executions in the {@code kandev} layout: kept in our {@code kandev_agent_executions}
 * (what we decide on: owner, worker instance, fencing) and shown in Kandev's own {@code
 * executors_running} row of the session the way Kandev's executor records one, so Kandev's views and
 * its boot reconcile see our agent: {@code agent_execution_id} ours, {@code pid} our agent's, {@code
 * runtime} {@value #RUNTIME}, status {@code starting}, then {@code ready} once it serves the session
 * (Kandev's status of an agent that finished its boot and waits for a prompt), and closed with
 * Kandev's stopped values ({@code failed}, {@code stopped} or {@code completed}, pid 0) at its exit or
 * when it is reaped.
 *
 * <p>Kandev's lifecycle upsert (docs/kandev.md rule 4) rewrites the whole row from what it read and
 * keeps the token only for the same {@code execution_profile_id}: we never change that column (a row
 * we create takes the session's {@code agent_profile_id}, which is what Kandev's execution would
 * write) nor {@code resume_token}, {@code executor_id}, the worktree or the metadata. After an agent of
 * ours started, its row is touched only while it still carries our execution: an execution of
 * Kandev's that replaced it is never overwritten. {@code local_pid} stays 0 and the runtime is not
 * one of Kandev's, so Kandev's liveness probe reads our row as "unknown" and keeps it.
 */
public final class KandevExecutorsRunningStore implements ExecutorsRunningStore {
  /** The {@code runtime} of a row that shows an agent of ours. */
  public static final String RUNTIME = "kandev-recovery";
  private static final String LIVE_STATUSES = "('" + String.join("', '", LIVE) + "')";

  private final KandevTables k;
  private final ExecutorsRunningStore ours;

  public KandevExecutorsRunningStore(StoreLayout layout) {
    this.k = new KandevTables(layout);
    this.ours = MirrorExecutorsRunningStore.onKandevTables(layout);
  }

  @Override
  public void recordStarting(Handle h, String sessionId, String executionId, String host, String workerInstance, long pid) {
    ours.recordStarting(h, sessionId, executionId, host, workerInstance, pid);
    claim(h, sessionId, executionId, (int) pid, "starting", "");
  }

  @Override
  public void recordStartFailure(
      Handle h, String sessionId, String executionId, String host, String workerInstance, String errorMessage) {
    ours.recordStartFailure(h, sessionId, executionId, host, workerInstance, errorMessage);
    claim(h, sessionId, executionId, 0, "failed", errorMessage);
  }

  @Override
  public boolean markRunning(Handle h, String sessionId, String executionId, Fence fence) {
    boolean running = ours.markRunning(h, sessionId, executionId, fence);
    if (running) {
      show(h, List.of(sessionId));
    }
    return running;
  }

  @Override
  public Optional<ExecutorRecord> withdrawLaunch(Handle h, String sessionId, String lockOwner, String reason) {
    Optional<ExecutorRecord> withdrawn = ours.withdrawLaunch(h, sessionId, lockOwner, reason);
    withdrawn.ifPresent(record -> show(h, List.of(sessionId)));
    return withdrawn;
  }

  @Override
  public boolean markExited(Handle h, String sessionId, String executionId, String status, String errorMessage) {
    boolean exited = ours.markExited(h, sessionId, executionId, status, errorMessage);
    if (exited) {
      show(h, List.of(sessionId));
    }
    return exited;
  }

  @Override
  public Optional<RecordedAgent> lockRecordedAgent(Handle h, String sessionId) {
    return ours.lockRecordedAgent(h, sessionId);
  }

  @Override
  public Optional<ExecutorRecord> find(Handle h, String sessionId) {
    return ours.find(h, sessionId);
  }

  @Override
  public Optional<String> liveOwnerOtherThan(Handle h, String sessionId, String workerInstance) {
    return ours.liveOwnerOtherThan(h, sessionId, workerInstance);
  }

  @Override
  public List<String> sessionsLostOn(Handle h, String host, String workerInstance) {
    return ours.sessionsLostOn(h, host, workerInstance);
  }

  @Override
  public List<String> markLostWithGoneWorkers(Handle h, String host, String workerInstance) {
    List<String> lost = ours.markLostWithGoneWorkers(h, host, workerInstance);
    show(h, lost);
    return lost;
  }

  @Override
  public Optional<String> leftStartingByAnotherWriter(Handle h, String sessionId) {
    return ours.leftStartingByAnotherWriter(h, sessionId);
  }

  @Override
  public Optional<String> kandevAgentOf(Handle h, String sessionId) {
    return h.createQuery(k.sql("SELECT 'status ' || status || ', execution ' || COALESCE(NULLIF(agent_execution_id, ''), 'none')"
            + " || ', runtime ' || COALESCE(NULLIF(runtime, ''), 'none') FROM {k}.executors_running"
            + " WHERE session_id = :id AND status IN " + LIVE_STATUSES + " AND COALESCE(runtime, '') <> :ours"))
        .bind("id", sessionId)
        .bind("ours", RUNTIME)
        .mapTo(String.class)
        .findOne();
  }

  /**
   * Kandev's idle reaper marks a row {@code stopped} once no agent of Kandev's own process serves it
   * and the row was not updated for a minute — also a row of a live agent of ours. The presence
   * beat (every 15 s) therefore shows the worker's live agents again: {@code ready}, its pid, fresh
   * {@code last_seen_at} and {@code updated_at}, on the rows that still show our execution.
   */
  @Override
  public void showLive(Handle h, String workerInstance) {
    show(h, h.createQuery("SELECT session_id FROM kandev_agent_executions WHERE worker_instance = :me"
            + " AND status IN " + LIVE_STATUSES)
        .bind("me", workerInstance)
        .mapTo(String.class)
        .list());
  }

  /**
   * The session's row shows our new execution: taken over if there is one (its token, execution
   * profile, executor, worktree and metadata kept) unless it shows a live agent of Kandev's, or created whole, as Kandev's upsert would, if
   * Kandev has none (deleted it at a boot, say): id = session id, the session's task, executor and
   * agent profile, resumable, no token yet.
   */
  private void claim(Handle h, String sessionId, String executionId, int pid, String status, String error) {
    h.createUpdate(k.sql("INSERT INTO {k}.executors_running AS er (id, session_id, task_id, executor_id,"
            + " execution_profile_id, runtime, status, resumable, resume_token, agent_execution_id, container_id,"
            + " agentctl_url, agentctl_port, pid, local_pid, error_message, metadata, last_seen_at, created_at, updated_at)"
            + " SELECT s.id, s.id, s.task_id, COALESCE(s.executor_id, ''), COALESCE(s.agent_profile_id, ''), :runtime,"
            + " :status, 1, '', :execution, '', '', 0, :pid, 0, :error, '{}', " + UTC_NOW + ", " + UTC_NOW + ", " + UTC_NOW
            + " FROM {k}.task_sessions s WHERE s.id = :id"
            + " ON CONFLICT (session_id) DO UPDATE SET runtime = EXCLUDED.runtime, status = EXCLUDED.status, resumable = 1,"
            + " agent_execution_id = EXCLUDED.agent_execution_id, container_id = '', agentctl_url = '', agentctl_port = 0,"
            + " pid = EXCLUDED.pid, local_pid = 0, error_message = EXCLUDED.error_message,"
            + " last_seen_at = EXCLUDED.last_seen_at, updated_at = EXCLUDED.updated_at"
            // A live agent of Kandev's stays shown (Kandev launched one against rule 5 meanwhile).
            + " WHERE er.status NOT IN " + LIVE_STATUSES + " OR er.runtime = EXCLUDED.runtime"))
        .bind("runtime", RUNTIME)
        .bind("status", status)
        .bind("execution", executionId)
        .bind("pid", pid)
        .bind("error", firstLine(error))
        .bind("id", sessionId)
        .execute();
  }

  /**
   * The rows of {@code sessionIds} that still show our current execution take its status and pid:
   * {@code ready} for an agent of ours that serves the session, Kandev's stopped values (pid 0) for
   * one that ended. A row Kandev rewrote for an execution of its own is left alone.
   */
  private void show(Handle h, List<String> sessionIds) {
    if (sessionIds.isEmpty()) {
      return;
    }
    h.createUpdate(k.sql("UPDATE {k}.executors_running er SET"
            + " status = CASE e.status WHEN 'running' THEN 'ready' ELSE e.status END, pid = COALESCE(e.pid, 0),"
            + " error_message = split_part(e.error_message, E'\\n', 1), last_seen_at = " + UTC_NOW + ","
            + " updated_at = " + UTC_NOW
            + " FROM kandev_agent_executions e WHERE e.session_id = er.session_id AND er.session_id = ANY(:ids)"
            + " AND er.agent_execution_id = e.agent_execution_id AND er.runtime = :ours"))
        .bind("ids", sessionIds.toArray(String[]::new))
        .bind("ours", RUNTIME)
        .execute();
  }

  private static String firstLine(String text) {
    if (text == null) {
      return "";
    }
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }
}
