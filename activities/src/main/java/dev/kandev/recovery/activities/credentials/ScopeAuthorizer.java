package dev.kandev.recovery.activities.credentials;

import dev.kandev.recovery.workflows.model.SessionState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The broker's authorization boundary, applied at issuance, minting and every redemption against
 * the rows in the database at that moment: the task belongs to the workspace, the session to the
 * task, the repository is linked to the task and matches host and path, and the session is not
 * COMPLETED, FAILED or CANCELLED. Not relaxed for anyone.
 */
final class ScopeAuthorizer {
  private ScopeAuthorizer() {}

  /**
   * Authorizes {@code scope} inside the caller's transaction. The session row is read {@code FOR
   * SHARE}, so a concurrent terminal transition waits for the lease write that follows.
   */
  static void authorize(Connection c, LeaseScope scope) throws SQLException {
    try (PreparedStatement task = c.prepareStatement("SELECT workspace_id FROM tasks WHERE id = ?")) {
      task.setString(1, scope.taskId());
      try (ResultSet rs = task.executeQuery()) {
        if (!rs.next()) {
          throw CredentialException.scopeDenied("unknown task " + scope.taskId());
        }
        if (!scope.workspaceId().equals(rs.getString(1))) {
          throw CredentialException.scopeDenied("task does not belong to workspace");
        }
      }
    }
    try (PreparedStatement session =
        c.prepareStatement("SELECT task_id, state FROM task_sessions WHERE id = ? FOR SHARE")) {
      session.setString(1, scope.sessionId());
      try (ResultSet rs = session.executeQuery()) {
        if (!rs.next()) {
          throw CredentialException.scopeDenied("unknown session " + scope.sessionId());
        }
        if (!scope.taskId().equals(rs.getString(1))) {
          throw CredentialException.scopeDenied("session does not belong to task");
        }
        String state = rs.getString(2);
        if (SessionState.parse(state).isTerminal()) {
          throw CredentialException.sessionTerminal(scope.sessionId(), state);
        }
      }
    }
    try (PreparedStatement repo =
        c.prepareStatement(
            "SELECT r.workspace_id, r.provider, r.host, r.owner, r.name FROM task_repositories tr"
                + " JOIN repositories r ON r.id = tr.repository_id WHERE tr.task_id = ? AND tr.repository_id = ?")) {
      repo.setString(1, scope.taskId());
      repo.setString(2, scope.repositoryId());
      try (ResultSet rs = repo.executeQuery()) {
        if (!rs.next()) {
          throw CredentialException.scopeDenied("repository is not linked to task");
        }
        if (!scope.workspaceId().equals(rs.getString(1))) {
          throw CredentialException.scopeDenied("repository does not belong to workspace");
        }
        if (!scope.provider().equals(rs.getString(2))) {
          throw CredentialException.scopeDenied("repository provider is not " + scope.provider());
        }
        if (!scope.matches(rs.getString(3), "/" + rs.getString(4) + "/" + rs.getString(5))) {
          throw CredentialException.scopeDenied("repository does not match host and path");
        }
      }
    }
  }
}
