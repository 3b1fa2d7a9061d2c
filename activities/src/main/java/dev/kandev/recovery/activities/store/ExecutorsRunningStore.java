package dev.kandev.recovery.activities.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The agent host's record of its processes in {@code executors_running}: which host and worker
 * instance owns the agent, its pid, status and execution id. It never writes {@code resume_token}
 * (only {@link SessionIdentityStore} does): every statement here names the columns it sets, and an
 * insert of a new row leaves the token at its empty default.
 */
public final class ExecutorsRunningStore {
  public static final Set<String> EXIT_STATUSES = Set.of("failed", "stopped", "completed");
  /** The statuses of a row that claims a live agent process, as an SQL list. */
  private static final String LIVE_STATUSES = "('starting', 'running', 'ready')";
  /** SQL: row {@code e} claims a live agent of a gone instance on host {@code ?} other than {@code ?}. */
  private static final String CLAIMED_BY_GONE_INSTANCE_ON_HOST = "e.status IN " + LIVE_STATUSES
      + " AND e.host = ? AND e.worker_instance <> ? AND NOT " + WorkerPresenceStore.INSTANCE_ALIVE;
  /** SQL: session {@code s} of row {@code e} was active, with a stored provider session: restart recovery resumes it. */
  private static final String RESUMED_AFTER_LOSS = "s.state IN ('WAITING_FOR_INPUT', 'RUNNING')"
      + " AND NOT (s.state = 'WAITING_FOR_INPUT' AND s.error_message <> '') AND e.resume_token <> ''";

  private final DataSource dataSource;

  public ExecutorsRunningStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** A new execution of the session's agent has a process; it becomes the row's current execution. */
  public void recordStarting(String sessionId, String executionId, String host, String workerInstance, long pid) {
    Sql.inTransaction(
        dataSource,
        "record agent start of session " + sessionId,
        c -> {
          try (PreparedStatement upsert =
              c.prepareStatement(
                  "INSERT INTO executors_running (session_id, task_id, agent_id, agent_execution_id, host,"
                      + " worker_instance, pid, status, error_message, last_seen_at)"
                      + " SELECT id, task_id, agent_id, ?, ?, ?, ?, 'starting', '', now() FROM task_sessions WHERE id = ?"
                      + " ON CONFLICT (session_id) DO UPDATE SET agent_execution_id = EXCLUDED.agent_execution_id,"
                      + " host = EXCLUDED.host, worker_instance = EXCLUDED.worker_instance, pid = EXCLUDED.pid,"
                      + " status = 'starting', error_message = '', last_seen_at = now(), updated_at = now()")) {
            upsert.setString(1, executionId);
            upsert.setString(2, host);
            upsert.setString(3, workerInstance);
            upsert.setLong(4, pid);
            upsert.setString(5, sessionId);
            if (upsert.executeUpdate() != 1) {
              throw new UnknownSessionException(sessionId);
            }
          }
          return null;
        });
  }

  /** A new execution whose process could not be started: current, failed, without a pid. */
  public void recordStartFailure(
      String sessionId, String executionId, String host, String workerInstance, String errorMessage) {
    Sql.inTransaction(
        dataSource,
        "record failed agent start of session " + sessionId,
        c -> {
          try (PreparedStatement upsert =
              c.prepareStatement(
                  "INSERT INTO executors_running (session_id, task_id, agent_id, agent_execution_id, host,"
                      + " worker_instance, pid, status, error_message, last_seen_at)"
                      + " SELECT id, task_id, agent_id, ?, ?, ?, NULL, 'failed', ?, now() FROM task_sessions WHERE id = ?"
                      + " ON CONFLICT (session_id) DO UPDATE SET agent_execution_id = EXCLUDED.agent_execution_id,"
                      + " host = EXCLUDED.host, worker_instance = EXCLUDED.worker_instance, pid = NULL,"
                      + " status = 'failed', error_message = EXCLUDED.error_message, last_seen_at = now(),"
                      + " updated_at = now()")) {
            upsert.setString(1, executionId);
            upsert.setString(2, host);
            upsert.setString(3, workerInstance);
            upsert.setString(4, errorMessage == null ? "" : errorMessage);
            upsert.setString(5, sessionId);
            if (upsert.executeUpdate() != 1) {
              throw new UnknownSessionException(sessionId);
            }
          }
          return null;
        });
  }

  /**
   * The execution completed its handshake and serves the session — if it still is the current,
   * starting execution and, for a launch under a resume lock ({@code fence} not none), the session
   * is still STARTING under that lock. False otherwise: a later launch took its place, or the resume
   * that asked for it gave up (its compensation withdrew the launch, restored the session or
   * released the lock); the caller then stops the agent.
   */
  public boolean markRunning(String sessionId, String executionId, Fence fence) {
    return Sql.inTransaction(
        dataSource,
        "mark agent of session " + sessionId + " running",
        c -> {
          // Serialises with a concurrent transition of the session (e.g. the resume's restore).
          try (PreparedStatement lock = c.prepareStatement("SELECT 1 FROM task_sessions WHERE id = ? FOR SHARE")) {
            lock.setString(1, sessionId);
            lock.executeQuery().close();
          }
          try (PreparedStatement update =
              c.prepareStatement(
                  "UPDATE executors_running e SET status = 'running', error_message = '', last_seen_at = now(),"
                      + " updated_at = now() WHERE e.session_id = ? AND e.agent_execution_id = ? AND e.status = 'starting'"
                      + " AND (?::bigint < 0 OR EXISTS (SELECT 1 FROM task_sessions s JOIN resume_locks l"
                      + " ON l.session_id = s.id WHERE s.id = e.session_id AND s.state = 'STARTING'"
                      + " AND l.fencing_token = ?))")) {
            update.setString(1, sessionId);
            update.setString(2, executionId);
            update.setLong(3, fence.token());
            update.setLong(4, fence.token());
            return update.executeUpdate() == 1;
          }
        });
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
  public Optional<ExecutorRecord> withdrawLaunch(String sessionId, String lockOwner, String reason) {
    return Sql.inTransaction(
        dataSource,
        "withdraw the launch of session " + sessionId,
        c -> {
          try (PreparedStatement update = c.prepareStatement(
              "UPDATE executors_running e SET status = 'failed', error_message = ?, updated_at = now()"
                  + " WHERE e.session_id = ? AND e.status IN " + LIVE_STATUSES
                  + " AND EXISTS (SELECT 1 FROM resume_locks l WHERE l.session_id = e.session_id AND l.owner = ?"
                  + " AND e.last_seen_at >= l.acquired_at)"
                  + " RETURNING session_id, agent_execution_id, host, worker_instance, pid, status, error_message")) {
            update.setString(1, reason);
            update.setString(2, sessionId);
            update.setString(3, lockOwner);
            try (ResultSet rs = update.executeQuery()) {
              return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
          }
        });
  }

  /**
   * The execution's process is gone ({@code failed}, {@code stopped} or {@code completed}): the pid
   * is cleared. False if another execution has replaced it meanwhile (its row is left alone).
   */
  public boolean markExited(String sessionId, String executionId, String status, String errorMessage) {
    if (!EXIT_STATUSES.contains(status)) {
      throw new IllegalArgumentException("exit status must be one of " + EXIT_STATUSES + ", got " + status);
    }
    return update(sessionId, executionId, status, errorMessage == null ? "" : errorMessage);
  }

  private boolean update(String sessionId, String executionId, String status, String error) {
    return Sql.inTransaction(
        dataSource,
        "mark agent of session " + sessionId + " " + status,
        c -> {
          try (PreparedStatement update =
              c.prepareStatement(
                  "UPDATE executors_running SET status = ?, error_message = ?, pid = NULL,"
                      + " last_seen_at = now(), updated_at = now() WHERE session_id = ? AND agent_execution_id = ?")) {
            update.setString(1, status);
            update.setString(2, error);
            update.setString(3, sessionId);
            update.setString(4, executionId);
            return update.executeUpdate() == 1;
          }
        });
  }

  public Optional<ExecutorRecord> find(String sessionId) {
    return Sql.inTransaction(
        dataSource,
        "read executor of session " + sessionId,
        c -> {
          try (PreparedStatement select = c.prepareStatement(SELECT + " WHERE session_id = ?")) {
            select.setString(1, sessionId);
            try (ResultSet rs = select.executeQuery()) {
              return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
          }
        });
  }

  /**
   * The worker instance, other than {@code workerInstance}, that claims a live agent of the session
   * and is itself alive (it beats in {@code worker_presence}); empty if none.
   */
  public Optional<String> liveOwnerOtherThan(String sessionId, String workerInstance) {
    return Sql.inTransaction(
        dataSource,
        "find the live owner of the agent of session " + sessionId,
        c -> {
          try (PreparedStatement select = c.prepareStatement(
              "SELECT e.worker_instance FROM executors_running e WHERE e.session_id = ? AND e.worker_instance <> ?"
                  + " AND e.status IN " + LIVE_STATUSES + " AND " + WorkerPresenceStore.INSTANCE_ALIVE)) {
            select.setString(1, sessionId);
            select.setString(2, workerInstance);
            return Sql.firstColumn(select).stream().findFirst();
          }
        });
  }

  /**
   * The sessions that lost their agent with a gone worker instance on {@code host} (not {@code
   * workerInstance}, the caller): active — WAITING_FOR_INPUT without an error, or RUNNING — with a
   * stored provider session. Restart recovery resumes them.
   */
  public List<String> sessionsLostOn(String host, String workerInstance) {
    return Sql.inTransaction(
        dataSource,
        "list the sessions lost on " + host,
        c -> {
          try (PreparedStatement select = c.prepareStatement(
              "SELECT s.id FROM task_sessions s JOIN executors_running e ON e.session_id = s.id"
                  + " WHERE " + RESUMED_AFTER_LOSS + " AND " + CLAIMED_BY_GONE_INSTANCE_ON_HOST + " ORDER BY s.id")) {
            select.setString(1, host);
            select.setString(2, workerInstance);
            return Sql.firstColumn(select);
          }
        });
  }

  /**
   * The agents that went with a gone worker instance on {@code host} (not {@code workerInstance},
   * the caller) and that restart recovery does not resume (see {@link #sessionsLostOn}): their rows
   * stop claiming a live process. Returns their session ids.
   */
  public List<String> markLostWithGoneWorkers(String host, String workerInstance) {
    return Sql.inTransaction(
        dataSource,
        "mark the agents lost with gone workers on " + host,
        c -> {
          try (PreparedStatement update = c.prepareStatement(
              "UPDATE executors_running e SET status = 'failed', pid = NULL, updated_at = now(),"
                  + " error_message = 'agent lost with its worker instance ' || e.worker_instance || ', which is gone'"
                  + " FROM task_sessions s WHERE s.id = e.session_id AND NOT (" + RESUMED_AFTER_LOSS + ")"
                  + " AND " + CLAIMED_BY_GONE_INSTANCE_ON_HOST + " RETURNING e.session_id")) {
            update.setString(1, host);
            update.setString(2, workerInstance);
            return Sql.firstColumn(update);
          }
        });
  }

  /** Rows that claim a live process owned by {@code host}/{@code workerInstance} (restart recovery). */
  public List<ExecutorRecord> claimedBy(String host, String workerInstance) {
    return Sql.inTransaction(
        dataSource,
        "list executors of " + host + "/" + workerInstance,
        c -> {
          try (PreparedStatement select =
              c.prepareStatement(SELECT + " WHERE host = ? AND worker_instance = ?"
                  + " AND status IN " + LIVE_STATUSES + " ORDER BY session_id")) {
            select.setString(1, host);
            select.setString(2, workerInstance);
            List<ExecutorRecord> rows = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                rows.add(row(rs));
              }
            }
            return rows;
          }
        });
  }

  private static final String SELECT =
      "SELECT session_id, agent_execution_id, host, worker_instance, pid, status, error_message FROM executors_running";

  private static ExecutorRecord row(ResultSet rs) throws SQLException {
    long pidValue = rs.getLong(5);
    Long pid = rs.wasNull() ? null : pidValue;
    return new ExecutorRecord(
        rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), pid, rs.getString(6), rs.getString(7));
  }
}
