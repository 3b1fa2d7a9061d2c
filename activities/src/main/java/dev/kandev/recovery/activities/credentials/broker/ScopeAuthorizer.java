package dev.kandev.recovery.activities.credentials.broker;

import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.LeaseScope;
import dev.kandev.recovery.activities.store.CredentialScopeStore;
import dev.kandev.recovery.activities.store.CredentialScopeStore.LinkedRepository;
import dev.kandev.recovery.activities.store.CredentialScopeStore.ScopeSession;
import dev.kandev.recovery.workflows.model.SessionState;
import org.jdbi.v3.core.Handle;

/**
 * The broker's authorization boundary, applied at issuance, minting and every redemption against
 * the rows in the database at that moment: the task belongs to the workspace, the session to the
 * task, the repository is linked to the task and matches host and path, and the session is not
 * COMPLETED, FAILED or CANCELLED. Not relaxed for anyone.
 */
final class ScopeAuthorizer {
  private ScopeAuthorizer() {}

  /**
   * Authorizes {@code scope} inside the caller's transaction, against the rows of {@code rows}' layout. The session row is read {@code FOR
   * SHARE}, so a concurrent terminal transition waits for the lease write that follows.
   */
  static void authorize(Handle h, CredentialScopeStore rows, LeaseScope scope) {
    String taskWorkspace = rows.taskWorkspace(h, scope.taskId())
        .orElseThrow(() -> CredentialException.scopeDenied("unknown task " + scope.taskId()));
    if (!scope.workspaceId().equals(taskWorkspace)) {
      throw CredentialException.scopeDenied("task does not belong to workspace");
    }
    ScopeSession session = rows.sessionForShare(h, scope.sessionId())
        .orElseThrow(() -> CredentialException.scopeDenied("unknown session " + scope.sessionId()));
    if (!scope.taskId().equals(session.taskId())) {
      throw CredentialException.scopeDenied("session does not belong to task");
    }
    if (SessionState.parse(session.state()).isTerminal()) {
      throw CredentialException.sessionTerminal(scope.sessionId(), session.state());
    }
    LinkedRepository repository = rows.linkedRepository(h, scope.taskId(), scope.repositoryId())
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
}
