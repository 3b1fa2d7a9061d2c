package dev.kandev.recovery.worker;

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
 * When a worker comes back, the agents its predecessor on this host ran are gone. Sessions that
 * were active on them, with a stored provider session, are resumed automatically — each through
 * the normal {@code ResumeSessionWorkflow}, so a repeated start attaches instead of doubling.
 * Sessions in the error-recovery state (WAITING_FOR_INPUT with an error) wait for the user.
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
