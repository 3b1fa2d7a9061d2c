package dev.kandev.recovery.activities.credentials;

import dev.kandev.recovery.workflows.model.SessionState;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

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
  static void authorize(Handle h, SessionTables tables, LeaseScope scope) {
    String taskWorkspace = h.createQuery("SELECT workspace_id FROM " + tables.tasks() + " WHERE id = :taskId")
        .bind("taskId", scope.taskId())
        .mapTo(String.class)
        .findOne()
        .orElseThrow(() -> CredentialException.scopeDenied("unknown task " + scope.taskId()));
    if (!scope.workspaceId().equals(taskWorkspace)) {
      throw CredentialException.scopeDenied("task does not belong to workspace");
    }
    SessionRow session = h.createQuery("SELECT task_id, state FROM " + tables.sessions() + " WHERE id = :sessionId FOR SHARE")
        .bind("sessionId", scope.sessionId())
        .map(SESSION_ROW)
        .findOne()
        .orElseThrow(() -> CredentialException.scopeDenied("unknown session " + scope.sessionId()));
    if (!scope.taskId().equals(session.taskId())) {
      throw CredentialException.scopeDenied("session does not belong to task");
    }
    if (SessionState.parse(session.state()).isTerminal()) {
      throw CredentialException.sessionTerminal(scope.sessionId(), session.state());
    }
    RepositoryRow repository = h.createQuery("SELECT r.workspace_id, r.provider, r.host, r.owner, r.name"
            + " FROM " + tables.taskRepositories() + " tr JOIN " + tables.repositories() + " r ON r.id = tr.repository_id"
            + " WHERE tr.task_id = :taskId AND tr.repository_id = :repositoryId")
        .bind("taskId", scope.taskId())
        .bind("repositoryId", scope.repositoryId())
        .map(REPOSITORY_ROW)
        .findOne()
        .orElseThrow(() -> CredentialException.scopeDenied("repository is not linked to task"));
    if (!scope.workspaceId().equals(repository.workspaceId())) {
      throw CredentialException.scopeDenied("repository does not belong to workspace");
    }
    if (!scope.provider().equals(repository.provider())) {
      throw CredentialException.scopeDenied("repository provider is not " + scope.provider());
    }
    if (!scope.matches(repository.host(), "/" + repository.owner() + "/" + repository.name())) {
      throw CredentialException.scopeDenied("repository does not match host and path");
    }
  }

  private record SessionRow(String taskId, String state) {}

  private record RepositoryRow(String workspaceId, String provider, String host, String owner, String name) {}

  private static final RowMapper<SessionRow> SESSION_ROW =
      (rs, ctx) -> new SessionRow(rs.getString("task_id"), rs.getString("state"));
  private static final RowMapper<RepositoryRow> REPOSITORY_ROW = (rs, ctx) -> new RepositoryRow(
      rs.getString("workspace_id"), rs.getString("provider"), rs.getString("host"), rs.getString("owner"),
      rs.getString("name"));
}
