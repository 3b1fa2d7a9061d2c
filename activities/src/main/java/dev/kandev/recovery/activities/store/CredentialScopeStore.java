package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.activities.credentials.LeaseScope;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * The rows a credential lease's scope is authorized against (tasks, sessions, the task's linked
 * {@code repositories}), read on the caller's transaction {@link Handle}. The broker's {@code
 * ScopeAuthorizer} decides; this only reads.
 */
public final class CredentialScopeStore {
  /** A session as the authorization sees it. */
  public record ScopeSession(String taskId, String state) {}

  /** A repository linked to a task. */
  public record LinkedRepository(String workspaceId, String provider, String host, String owner, String name) {}

  private static final RowMapper<ScopeSession> SCOPE_SESSION =
      (rs, ctx) -> new ScopeSession(rs.getString("task_id"), rs.getString("state"));
  private static final RowMapper<LinkedRepository> LINKED_REPOSITORY = (rs, ctx) -> new LinkedRepository(
      rs.getString("workspace_id"), rs.getString("provider"), rs.getString("host"), rs.getString("owner"),
      rs.getString("name"));

  public Optional<String> taskWorkspace(Handle h, String taskId) {
    return h.createQuery("SELECT workspace_id FROM tasks WHERE id = :taskId")
        .bind("taskId", taskId)
        .mapTo(String.class)
        .findOne();
  }

  /** The session, read {@code FOR SHARE}: a concurrent terminal transition waits for the caller's transaction. */
  public Optional<ScopeSession> sessionForShare(Handle h, String sessionId) {
    return h.createQuery("SELECT task_id, state FROM task_sessions WHERE id = :sessionId FOR SHARE")
        .bind("sessionId", sessionId)
        .map(SCOPE_SESSION)
        .findOne();
  }

  /** The repository if it is linked to the task. */
  public Optional<LinkedRepository> linkedRepository(Handle h, String taskId, String repositoryId) {
    return h.createQuery("SELECT r.workspace_id, r.provider, r.host, r.owner, r.name"
            + " FROM task_repositories tr JOIN repositories r ON r.id = tr.repository_id"
            + " WHERE tr.task_id = :taskId AND tr.repository_id = :repositoryId")
        .bind("taskId", taskId)
        .bind("repositoryId", repositoryId)
        .map(LINKED_REPOSITORY)
        .findOne();
  }

  public boolean sessionExists(Handle h, String sessionId) {
    return h.createQuery("SELECT EXISTS (SELECT 1 FROM task_sessions WHERE id = :sessionId)")
        .bind("sessionId", sessionId)
        .mapTo(Boolean.class)
        .one();
  }

  /** One scope per repository linked to the session's task, in link order ({@code task_repositories.position}). */
  public List<LeaseScope> scopesOfSession(Handle h, String sessionId) {
    return h.createQuery("SELECT t.workspace_id, s.task_id, r.id, r.host, r.owner, r.name, r.provider FROM task_sessions s"
            + " JOIN tasks t ON t.id = s.task_id JOIN task_repositories tr ON tr.task_id = s.task_id"
            + " JOIN repositories r ON r.id = tr.repository_id WHERE s.id = :sessionId ORDER BY tr.position, r.id")
        .bind("sessionId", sessionId)
        .map((rs, ctx) -> new LeaseScope(rs.getString("workspace_id"), rs.getString("task_id"), sessionId,
            rs.getString("id"), rs.getString("host"), "/" + rs.getString("owner") + "/" + rs.getString("name"),
            rs.getString("provider")))
        .list();
  }

  /** The session's executor ({@code task_sessions.executor_id}), or empty when it has none. */
  public Optional<String> executorOf(Handle h, String sessionId) {
    return h.createQuery("SELECT executor_id FROM task_sessions WHERE id = :sessionId")
        .bind("sessionId", sessionId)
        .mapTo(String.class)
        .findOne()
        .filter(executorId -> !executorId.isBlank());
  }
}
