package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.Fence;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * The agent host's record of its processes in {@code executors_running} (in the kandev layout, in
 * our {@code kandev_agent_executions}: see {@link #onKandevTables}): which host and worker instance
 * owns the agent, its pid, status and execution id. It never writes {@code resume_token} (only
 * {@link SessionIdentityStore} does): every statement here names the columns it sets, and an
 * insert of a new row leaves the token at its empty default. Every method runs on the caller's
 * transaction {@link Handle}.
 */
public final class MirrorExecutorsRunningStore implements ExecutorsRunningStore {
  /** {@link #LIVE} as an SQL list. */
  static final String LIVE_STATUSES = "('" + String.join("', '", LIVE) + "')";
  /** SQL: row {@code e} claims a live agent of a gone instance on host {@code :host} other than {@code :instance}. */
  private static final String CLAIMED_BY_GONE_INSTANCE_ON_HOST = "e.status IN " + LIVE_STATUSES
      + " AND e.host = :host AND e.worker_instance <> :instance AND NOT " + WorkerPresenceStore.INSTANCE_ALIVE;
  /** SQL: session {@code s} of row {@code e} was active, with a stored provider session: restart recovery resumes it. */
  private final String resumedAfterLoss;

  static final RowMapper<ExecutorRecord> EXECUTOR_RECORD = (rs, ctx) -> new ExecutorRecord(
      rs.getString("session_id"), rs.getString("agent_execution_id"), rs.getString("host"),
      rs.getString("worker_instance"), rs.getObject("pid", Long.class), rs.getString("status"),
      rs.getString("error_message"));
  static final String EXECUTOR_COLUMNS =
      "session_id, agent_execution_id, host, worker_instance, pid, status, error_message";

  /** Our table of executions, Kandev's (or our mirror's) sessions, and the copies of the session's columns a new row takes. */
  private final String executions;
  private final String sessions;
  private final String copiedSessionColumns;

  /** On our mirror: the executions are rows of our {@code executors_running}, which also holds the token. */
  public MirrorExecutorsRunningStore() {
    this("executors_running", "task_sessions", ", task_id, agent_id", "e.resume_token");
  }

  /**
   * In the kandev layout: the executions are rows of our {@code kandev_agent_executions} (V13), keyed
   * by Kandev's session id; the sessions and the token ({@code executors_running.resume_token}) are
   * read from Kandev's tables in {@code layout}'s schema, never written here.
   */
  public static ExecutorsRunningStore onKandevTables(StoreLayout layout) {
    if (!layout.isKandev()) {
      throw new IllegalArgumentException("Kandev's tables are only used in the kandev layout");
    }
    String k = layout.kandevSchema();
    return new MirrorExecutorsRunningStore("kandev_agent_executions", k + ".task_sessions", "",
        "COALESCE((SELECT er.resume_token FROM " + k + ".executors_running er WHERE er.session_id = s.id), '')");
  }

  private MirrorExecutorsRunningStore(String executions, String sessions, String copiedSessionColumns, String token) {
    this.executions = executions;
    this.sessions = sessions;
    this.copiedSessionColumns = copiedSessionColumns;
    this.resumedAfterLoss = "s.state IN ('WAITING_FOR_INPUT', 'RUNNING')"
        + " AND NOT (s.state = 'WAITING_FOR_INPUT' AND COALESCE(s.error_message, '') <> '') AND " + token + " <> ''";
  }

  /** A new execution of the session's agent has a process; it becomes the row's current execution. */
  public void recordStarting(Handle h, String sessionId, String executionId, String host, String workerInstance, long pid) {
    recordExecution(h, sessionId, executionId, host, workerInstance, pid, "starting", "");
  }

  /** A new execution whose process could not be started: current, failed, without a pid. */
  public void recordStartFailure(
      Handle h, String sessionId, String executionId, String host, String workerInstance, String errorMessage) {
    recordExecution(h, sessionId, executionId, host, workerInstance, null, "failed",
        errorMessage == null ? "" : errorMessage);
  }

  private void recordExecution(Handle h, String sessionId, String executionId, String host,
      String workerInstance, Long pid, String status, String errorMessage) {
    // An exited execution's leases went at its exit (and its row's time is that of the exit).
    lastRecorded(h, "session_id = :sessionId AND status IN " + LIVE_STATUSES, Map.of("sessionId", sessionId))
        .forEach((session, recordedAt) -> revokeLeasesOfEndedExecution(h, session, recordedAt));
    int rows = h.createUpdate("INSERT INTO " + executions + " (session_id" + copiedSessionColumns + ", agent_execution_id, host,"
            + " worker_instance, pid, status, error_message, last_seen_at)"
            + " SELECT id" + copiedSessionColumns + ", :executionId, :host, :instance, :pid, :status, :error, now()"
            + " FROM " + sessions + " WHERE id = :sessionId"
            + " ON CONFLICT (session_id) DO UPDATE SET agent_execution_id = EXCLUDED.agent_execution_id,"
            + " host = EXCLUDED.host, worker_instance = EXCLUDED.worker_instance, pid = EXCLUDED.pid,"
            + " status = EXCLUDED.status, error_message = EXCLUDED.error_message, last_seen_at = now(),"
            + " updated_at = now()")
        .bind("executionId", executionId)
        .bind("host", host)
        .bind("instance", workerInstance)
        .bind("pid", pid)
        .bind("status", status)
        .bind("error", errorMessage)
        .bind("sessionId", sessionId)
        .execute();
    if (rows != 1) {
      throw new UnknownSessionException(sessionId);
    }
  }

  /**
   * The execution completed its handshake and serves the session — if it still is the current,
   * starting execution and, for a launch under a resume lock ({@code fence} not none), the session
   * is still STARTING under that lock. False otherwise: a later launch took its place, or the resume
   * that asked for it gave up (its compensation withdrew the launch, restored the session or
   * released the lock); the caller then stops the agent.
   */
  public boolean markRunning(Handle h, String sessionId, String executionId, Fence fence) {
    // Serialises with a concurrent transition of the session (e.g. the resume's restore).
    h.createQuery("SELECT 1 FROM " + sessions + " WHERE id = :sessionId FOR SHARE")
        .bind("sessionId", sessionId)
        .mapTo(Integer.class)
        .list();
    return h.createUpdate("UPDATE " + executions + " e SET status = 'running', error_message = '', last_seen_at = now(),"
            + " updated_at = now() WHERE e.session_id = :sessionId AND e.agent_execution_id = :executionId"
            + " AND e.status = 'starting'"
            + " AND (:fence < 0 OR EXISTS (SELECT 1 FROM " + sessions + " s JOIN resume_locks l"
            + " ON l.session_id = s.id WHERE s.id = e.session_id AND s.state = 'STARTING'"
            + " AND l.fencing_token = :fence))")
        .bind("sessionId", sessionId)
        .bind("executionId", executionId)
        .bind("fence", fence.token())
        .execute() == 1;
  }

  /**
   * A resume gave up on its launch: the execution it started — on whichever worker, which may be
   * stalled or cut off from Temporal and unable to hear the compensation — no longer claims the
   * session. Its row becomes {@code failed} with {@code reason} (the pid stays, for the operator, until
   * that worker stops the process): its launch can no longer complete ({@link #markRunning}), its
   * worker's reaper stops an agent it already registered, and a new resume is not refused because
   * of it. Only an execution the agent host recorded while {@code lockOwner} held the session's
   * resume lock is touched, so a late compensation never withdraws a newer resume's agent.
   *
   * @return the withdrawn execution, if there was one
   */
  public Optional<ExecutorRecord> withdrawLaunch(Handle h, String sessionId, String lockOwner, String reason) {
    return h.createQuery("UPDATE " + executions + " e SET status = 'failed', error_message = :reason, updated_at = now()"
            + " WHERE e.session_id = :sessionId AND e.status IN " + LIVE_STATUSES
            + " AND EXISTS (SELECT 1 FROM resume_locks l WHERE l.session_id = e.session_id AND l.owner = :owner"
            + " AND e.last_seen_at >= l.acquired_at)"
            + " RETURNING " + EXECUTOR_COLUMNS)
        .bind("reason", reason)
        .bind("sessionId", sessionId)
        .bind("owner", lockOwner)
        .map(EXECUTOR_RECORD)
        .findOne();
  }

  /**
   * The execution's process is gone ({@code failed}, {@code stopped} or {@code completed}): the pid
   * is cleared. False if another execution has replaced it meanwhile (its row is left alone).
   */
  public boolean markExited(Handle h, String sessionId, String executionId, String status, String errorMessage) {
    if (!EXIT_STATUSES.contains(status)) {
      throw new IllegalArgumentException("exit status must be one of " + EXIT_STATUSES + ", got " + status);
    }
    Map<String, Instant> ended = lastRecorded(h, "session_id = :sessionId AND agent_execution_id = :executionId",
        Map.of("sessionId", sessionId, "executionId", executionId));
    ended.forEach((session, recordedAt) -> revokeLeasesOfEndedExecution(h, session, recordedAt));
    return h.createUpdate("UPDATE " + executions + " SET status = :status, error_message = :error, pid = NULL,"
            + " last_seen_at = now(), updated_at = now() WHERE session_id = :sessionId AND agent_execution_id = :executionId")
        .bind("status", status)
        .bind("error", errorMessage == null ? "" : errorMessage)
        .bind("sessionId", sessionId)
        .bind("executionId", executionId)
        .execute() == 1;
  }

  /**
   * The session's agent as recorded now, with whether its worker instance is alive; the row is locked
   * ({@code FOR SHARE}) until the transaction ends, so the agent's exit or loss is recorded either
   * before the caller's decision or after its commit, never in between.
   */
  public Optional<RecordedAgent> lockRecordedAgent(Handle h, String sessionId) {
    return h.createQuery("SELECT " + EXECUTOR_COLUMNS + ", " + WorkerPresenceStore.INSTANCE_ALIVE + " AS instance_alive"
            + " FROM " + executions + " e WHERE e.session_id = :sessionId FOR SHARE OF e")
        .bind("sessionId", sessionId)
        .map((rs, ctx) -> new RecordedAgent(EXECUTOR_RECORD.map(rs, ctx), rs.getBoolean("instance_alive")))
        .findOne();
  }

  @Override
  public Optional<String> leftStartingByAnotherWriter(Handle h, String sessionId) {
    return h.createQuery("SELECT s.state FROM " + sessions + " s WHERE s.id = :sessionId AND s.state <> 'STARTING'"
            + " AND (SELECT to_state FROM session_events WHERE session_id = s.id ORDER BY id DESC LIMIT 1) = 'STARTING'")
        .bind("sessionId", sessionId)
        .mapTo(String.class)
        .findOne();
  }

  public Optional<ExecutorRecord> find(Handle h, String sessionId) {
    return h.createQuery("SELECT " + EXECUTOR_COLUMNS + " FROM " + executions + " WHERE session_id = :sessionId")
        .bind("sessionId", sessionId)
        .map(EXECUTOR_RECORD)
        .findOne();
  }

  /**
   * The worker instance, other than {@code workerInstance}, that claims a live agent of the session
   * and is itself alive (it beats in {@code worker_presence}); empty if none.
   */
  public Optional<String> liveOwnerOtherThan(Handle h, String sessionId, String workerInstance) {
    return h.createQuery("SELECT e.worker_instance FROM " + executions + " e"
            + " WHERE e.session_id = :sessionId AND e.worker_instance <> :instance"
            + " AND e.status IN " + LIVE_STATUSES + " AND " + WorkerPresenceStore.INSTANCE_ALIVE)
        .bind("sessionId", sessionId)
        .bind("instance", workerInstance)
        .mapTo(String.class)
        .findFirst();
  }

  /**
   * The sessions that lost their agent with a gone worker instance on {@code host} (not {@code
   * workerInstance}, the caller): active — WAITING_FOR_INPUT without an error, or RUNNING — with a
   * stored provider session. Restart recovery resumes them.
   */
  public List<String> sessionsLostOn(Handle h, String host, String workerInstance) {
    return sessionIdsOnHost(h, "SELECT s.id FROM " + sessions + " s JOIN " + executions + " e ON e.session_id = s.id"
        + " WHERE " + resumedAfterLoss + " AND " + CLAIMED_BY_GONE_INSTANCE_ON_HOST + " ORDER BY s.id", host, workerInstance);
  }

  /**
   * The agents that went with a gone worker instance on {@code host} (not {@code workerInstance},
   * the caller) and that restart recovery does not resume (see {@link #sessionsLostOn}): their rows
   * stop claiming a live process. Returns their session ids.
   */
  public List<String> markLostWithGoneWorkers(Handle h, String host, String workerInstance) {
    Map<String, Instant> lost = new LinkedHashMap<>();
    h.createQuery("UPDATE " + executions + " e SET status = 'failed', pid = NULL, updated_at = now(),"
            + " error_message = 'agent lost with its worker instance ' || e.worker_instance || ', which is gone'"
            + " FROM " + sessions + " s, " + executions + " before WHERE s.id = e.session_id AND before.session_id = e.session_id"
            + " AND NOT (" + resumedAfterLoss + ") AND " + CLAIMED_BY_GONE_INSTANCE_ON_HOST
            + " RETURNING e.session_id, before.updated_at")
        .bind("host", host)
        .bind("instance", workerInstance)
        .map((rs, ctx) -> lost.put(rs.getString(1), rs.getTimestamp(2).toInstant()))
        .list();
    lost.forEach((session, recordedAt) -> revokeLeasesOfEndedExecution(h, session, recordedAt));
    return List.copyOf(lost.keySet());
  }

  /** When the executions of the rows {@code where} selects were last recorded, by session; the rows are locked. */
  private Map<String, Instant> lastRecorded(Handle h, String where, Map<String, String> binds) {
    Map<String, Instant> recorded = new LinkedHashMap<>();
    var query = h.createQuery("SELECT session_id, updated_at FROM " + executions + " WHERE " + where + " FOR UPDATE");
    binds.forEach(query::bind);
    query.map((rs, ctx) -> recorded.put(rs.getString(1), rs.getTimestamp(2).toInstant())).list();
    return recorded;
  }

  /**
   * An execution ended (exited, lost with its worker, or replaced by a new launch): the credential
   * leases it was given are revoked — those of its session whose token was minted by the time the
   * execution was last recorded. A lease minted since, for a launch under way, stays.
   */
  private static void revokeLeasesOfEndedExecution(Handle h, String sessionId, Instant lastRecorded) {
    h.createUpdate("UPDATE credential_leases SET revoked_at = now() WHERE session_id = :sessionId"
            + " AND revoked_at IS NULL AND minted_at <= :lastRecorded")
        .bind("sessionId", sessionId)
        .bind("lastRecorded", lastRecorded)
        .execute();
  }

  /** The session ids a statement about gone instances on {@code host} (not {@code workerInstance}) returns. */
  private static List<String> sessionIdsOnHost(Handle h, String sql, String host, String workerInstance) {
    return h.createQuery(sql).bind("host", host).bind("instance", workerInstance).mapTo(String.class).list();
  }
}
