package dev.kandev.recovery.activities.credentials;

import dev.kandev.recovery.activities.store.StoreLayout;

/**
 * Where the broker reads the rows it authorizes against (tasks, sessions, the repositories linked to
 * a task): our mirror, or Kandev's own tables in the kandev layout, read only. Each name is SQL for
 * a {@code FROM} clause; {@link #repositories} has the columns {@code id, workspace_id, provider,
 * host, owner, name} in both layouts.
 */
record SessionTables(String tasks, String sessions, String taskRepositories, String repositories) {
  static final SessionTables MIRROR = new SessionTables("tasks", "task_sessions", "task_repositories", "repositories");

  static SessionTables of(StoreLayout layout) {
    if (!layout.isKandev()) {
      return MIRROR;
    }
    String k = layout.kandevSchema() + ".";
    // Kandev keeps a provider repository's host, owner and name in provider_* columns; a deleted one links nothing.
    return new SessionTables(k + "tasks", k + "task_sessions", k + "task_repositories",
        "(SELECT id, workspace_id, provider, provider_host AS host, provider_owner AS owner, provider_name AS name"
            + " FROM " + k + "repositories WHERE deleted_at IS NULL)");
  }
}
