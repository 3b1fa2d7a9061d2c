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
  private final String tasks;
  private final String sessions;
  private final String taskRepositories;
  /** SQL for a {@code FROM} clause with the columns {@code id, workspace_id, provider, host, owner, name}. */
  private final String repositories;

  /** A session as the authorization sees it. */
  public record ScopeSession(String taskId, String state) {}

  /** A repository linked to a task. */
  public record LinkedRepository(String workspaceId, String provider, String host, String owner, String name) {}

  private static final RowMapper<ScopeSession> SCOPE_SESSION =
      (rs, ctx) -> new ScopeSession(rs.getString("task_id"), rs.getString("state"));
  private static final RowMapper<LinkedRepository> LINKED_REPOSITORY = (rs, ctx) -> new LinkedRepository(
      rs.getString("workspace_id"), rs.getString("provider"), rs.getString("host"), rs.getString("owner"),
      rs.getString("name"));

  /** On our mirror's tables. */
  public CredentialScopeStore() {
    this(StoreLayout.MIRROR);
  }

  /** On the tables of {@code layout}: our mirror, or Kandev's own, read only. */
  public CredentialScopeStore(StoreLayout layout) {
    tasks = layout.kandevTable("tasks");
    sessions = layout.kandevTable("task_sessions");
    taskRepositories = layout.kandevTable("task_repositories");
    // Kandev keeps a provider repository's host, owner and name in provider_* columns; a deleted one links nothing.
    repositories = layout.isKandev()
        ? "(SELECT id, workspace_id, provider, provider_host AS host, provider_owner AS owner, provider_name AS name"
            + " FROM " + layout.kandevTable("repositories") + " WHERE deleted_at IS NULL)"
        : "repositories";
  }

  public Optional<String> taskWorkspace(Handle h, String taskId) {
    return h.createQuery("SELECT workspace_id FROM " + tasks + " WHERE id = :taskId")
        .bind("taskId", taskId)
        .mapTo(String.class)
        .findOne();
  }

  /** The session, read {@code FOR SHARE}: a concurrent terminal transition waits for the caller's transaction. */
  public Optional<ScopeSession> sessionForShare(Handle h, String sessionId) {
    return h.createQuery("SELECT task_id, state FROM " + sessions + " WHERE id = :sessionId FOR SHARE")
        .bind("sessionId", sessionId)
        .map(SCOPE_SESSION)
        .findOne();
  }

  /** The repository if it is linked to the task. */
  public Optional<LinkedRepository> linkedRepository(Handle h, String taskId, String repositoryId) {
    return h.createQuery("SELECT r.workspace_id, r.provider, r.host, r.owner, r.name"
            + " FROM " + taskRepositories + " tr JOIN " + repositories + " r ON r.id = tr.repository_id"
            + " WHERE tr.task_id = :taskId AND tr.repository_id = :repositoryId")
        .bind("taskId", taskId)
        .bind("repositoryId", repositoryId)
        .map(LINKED_REPOSITORY)
        .findOne();
  }

  public boolean sessionExists(Handle h, String sessionId) {
    return h.createQuery("SELECT EXISTS (SELECT 1 FROM " + sessions + " WHERE id = :sessionId)")
        .bind("sessionId", sessionId)
        .mapTo(Boolean.class)
        .one();
  }

  /** One scope per repository linked to the session's task, in link order ({@code task_repositories.position}). */
  public List<LeaseScope> scopesOfSession(Handle h, String sessionId) {
    return h.createQuery("SELECT t.workspace_id, s.task_id, r.id, r.host, r.owner, r.name, r.provider FROM " + sessions + " s"
            + " JOIN " + tasks + " t ON t.id = s.task_id JOIN " + taskRepositories + " tr ON tr.task_id = s.task_id"
            + " JOIN " + repositories + " r ON r.id = tr.repository_id WHERE s.id = :sessionId ORDER BY tr.position, r.id")
        .bind("sessionId", sessionId)
        .map((rs, ctx) -> new LeaseScope(rs.getString("workspace_id"), rs.getString("task_id"), sessionId,
            rs.getString("id"), rs.getString("host"), "/" + rs.getString("owner") + "/" + rs.getString("name"),
            rs.getString("provider")))
        .list();
  }

  /** The session's executor ({@code task_sessions.executor_id}), or empty when it has none. */
  public Optional<String> executorOf(Handle h, String sessionId) {
    return h.createQuery("SELECT COALESCE(executor_id, '') FROM " + sessions + " WHERE id = :sessionId")
        .bind("sessionId", sessionId)
        .mapTo(String.class)
        .findOne()
        .filter(executorId -> !executorId.isBlank());
  }
}
