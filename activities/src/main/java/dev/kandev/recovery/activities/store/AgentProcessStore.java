package dev.kandev.recovery.activities.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The agent processes the workers started and have not seen end ({@code agent_processes}, V15): a
 * pid with its start instant, so a later launch on the same host can stop a process an earlier
 * worker left (a stopped worker cannot stop its own child) without ever signalling a reused pid.
 * Every method runs on the caller's transaction {@link Handle}.
 */
public final class AgentProcessStore {
  private static final String SELECT =
      "SELECT agent_execution_id, session_id, host, worker_instance, pid, started_at FROM agent_processes";

  /**
   * One recorded agent process.
   *
   * @param startedAt its start instant as the kernel reported it at the launch; null if unknown
   */
  public record AgentProcess(
      String sessionId, String executionId, String host, String workerInstance, long pid, Instant startedAt) {}

  public void record(Handle h, AgentProcess process) {
    h.createUpdate("INSERT INTO agent_processes (agent_execution_id, session_id, host, worker_instance, pid, started_at)"
            + " VALUES (:executionId, :sessionId, :host, :instance, :pid, :startedAt)")
        .bind("executionId", process.executionId())
        .bind("sessionId", process.sessionId())
        .bind("host", process.host())
        .bind("instance", process.workerInstance())
        .bind("pid", process.pid())
        .bind("startedAt", process.startedAt() == null ? null : Timestamp.from(process.startedAt()))
        .execute();
  }

  /** The process of this execution has ended (or was found gone). */
  public void forget(Handle h, String executionId) {
    h.createUpdate("DELETE FROM agent_processes WHERE agent_execution_id = :executionId")
        .bind("executionId", executionId)
        .execute();
  }

  /** The session's recorded agent processes on {@code host}, oldest first. */
  public List<AgentProcess> onHost(Handle h, String sessionId, String host) {
    return h.createQuery(SELECT + " WHERE session_id = :sessionId AND host = :host ORDER BY recorded_at")
        .bind("sessionId", sessionId)
        .bind("host", host)
        .map(AgentProcessStore::process)
        .list();
  }

  /** Every recorded agent process on {@code host}. */
  public List<AgentProcess> onHost(Handle h, String host) {
    return h.createQuery(SELECT + " WHERE host = :host ORDER BY recorded_at")
        .bind("host", host)
        .map(AgentProcessStore::process)
        .list();
  }

  private static AgentProcess process(ResultSet rs, StatementContext ctx) throws SQLException {
    Timestamp started = rs.getTimestamp("started_at");
    return new AgentProcess(rs.getString("session_id"), rs.getString("agent_execution_id"), rs.getString("host"),
        rs.getString("worker_instance"), rs.getLong("pid"), started == null ? null : started.toInstant());
  }
}
