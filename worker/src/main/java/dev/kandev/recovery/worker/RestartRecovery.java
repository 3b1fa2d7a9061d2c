package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.store.WorkerPresenceStore;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a worker instance is gone (it crashed, or its process was killed), so are the agents it ran.
 * Sessions that were active on agents of a gone instance on this host, with a stored provider
 * session, are resumed automatically — each through the normal {@code ResumeSessionWorkflow}, so a
 * repeated run attaches instead of doubling. An instance is gone once it stopped beating in {@code
 * worker_presence}; another live worker on the same host keeps its sessions. Sessions in the
 * error-recovery state (WAITING_FOR_INPUT with an error) wait for the user.
 */
final class RestartRecovery {
  private static final Logger log = LoggerFactory.getLogger(RestartRecovery.class);

  private static final String LOST_SESSIONS =
      "SELECT s.id FROM task_sessions s JOIN executors_running e ON e.session_id = s.id"
          + " WHERE s.state IN ('WAITING_FOR_INPUT', 'RUNNING')"
          + " AND NOT (s.state = 'WAITING_FOR_INPUT' AND s.error_message <> '')"
          + " AND e.resume_token <> ''"
          + " AND e.status IN ('starting', 'running', 'ready')"
          + " AND e.host = ? AND e.worker_instance <> ?"
          + " AND NOT EXISTS (SELECT 1 FROM worker_presence p WHERE p.worker_instance = e.worker_instance"
          + " AND p.last_seen_at > now() - ? * interval '1 millisecond')"
          + " ORDER BY s.id";

  private final DataSource dataSource;
  private final ResumeClient resumes;
  private final String host;
  private final String instance;

  RestartRecovery(DataSource dataSource, ResumeClient resumes, String host, String instance) {
    this.dataSource = dataSource;
    this.resumes = resumes;
    this.host = host;
    this.instance = instance;
  }

  /** Starts (or attaches to) a resume for every lost session; returns their ids. */
  List<String> resumeLostSessions() {
    List<String> sessionIds = lostSessions();
    for (String sessionId : sessionIds) {
      try {
        resumes.start(new ResumeRequest(sessionId, ResumeMode.RESUME, "restart_recovery", "worker:" + instance));
        log.info("restart recovery: resuming session {}", sessionId);
      } catch (RuntimeException e) {
        log.warn("restart recovery: could not start the resume of session {}: {}", sessionId, e.getMessage());
      }
    }
    return sessionIds;
  }

  private List<String> lostSessions() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement select = c.prepareStatement(LOST_SESSIONS)) {
      select.setString(1, host);
      select.setString(2, instance);
      select.setLong(3, WorkerPresenceStore.GONE_AFTER.toMillis());
      List<String> ids = new ArrayList<>();
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
      return ids;
    } catch (SQLException e) {
      throw new IllegalStateException("restart recovery could not read the sessions: " + e.getMessage(), e);
    }
  }
}
