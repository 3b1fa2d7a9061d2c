package dev.kandev.recovery.activities.testing;

/** Rows of the credential broker's tables (V3; in the kandev layout, Kandev's repositories), written with plain SQL. */
public final class CredentialFixtures {
  private final Fixtures fixtures;

  public CredentialFixtures(Fixtures fixtures) {
    this.fixtures = fixtures;
  }

  public CredentialFixtures repository(String id, String workspaceId, String host, String owner, String name) {
    if (fixtures.layout().isKandev()) {
      // Kandev's repositories row of a GitHub repository, in its workspace (a foreign key Kandev has).
      fixtures.exec("INSERT INTO workspaces (id, name, created_at, updated_at) VALUES (?, ?, now() AT TIME ZONE 'UTC',"
          + " now() AT TIME ZONE 'UTC') ON CONFLICT (id) DO NOTHING", workspaceId, workspaceId);
      fixtures.exec("INSERT INTO repositories (id, workspace_id, name, source_type, provider, provider_host, provider_owner,"
              + " provider_name, remote_url, created_at, updated_at) VALUES (?, ?, ?, 'provider', 'github', ?, ?, ?, ?,"
              + " now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')",
          id, workspaceId, owner + "/" + name, host, owner, name, "https://" + host + "/" + owner + "/" + name + ".git");
      return this;
    }
    fixtures.exec("INSERT INTO repositories (id, workspace_id, host, owner, name) VALUES (?, ?, ?, ?, ?)",
        id, workspaceId, host, owner, name);
    return this;
  }

  public CredentialFixtures link(String taskId, String repositoryId, int position) {
    if (fixtures.layout().isKandev()) {
      fixtures.exec("INSERT INTO task_repositories (id, task_id, repository_id, position, created_at, updated_at)"
          + " VALUES (?, ?, ?, ?, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')",
          taskId + "/" + repositoryId, taskId, repositoryId, position);
      return this;
    }
    fixtures.exec("INSERT INTO task_repositories (task_id, repository_id, position) VALUES (?, ?, ?)",
        taskId, repositoryId, position);
    return this;
  }

  /** Sets (insert or replace) the workspace's policy; {@code installationId} may be null. */
  public CredentialFixtures workspacePolicy(String workspaceId, String policy, Long installationId, String permissionsJson) {
    return policy("workspace_credential_policies", "workspace_id", workspaceId, policy, installationId, permissionsJson);
  }

  public CredentialFixtures executorPolicy(String executorId, String policy, Long installationId, String permissionsJson) {
    return policy("executor_credential_policies", "executor_id", executorId, policy, installationId, permissionsJson);
  }

  /** The workspace and executor policy tables differ only in their key column. */
  private CredentialFixtures policy(String table, String keyColumn, String key, String policy, Long installationId,
      String permissionsJson) {
    fixtures.exec("INSERT INTO " + table + " (" + keyColumn + ", policy, installation_id, permissions)"
            + " VALUES (?, ?, ?, ?::jsonb) ON CONFLICT (" + keyColumn + ") DO UPDATE SET policy = EXCLUDED.policy,"
            + " installation_id = EXCLUDED.installation_id, permissions = EXCLUDED.permissions, updated_at = now()",
        key, policy, installationId, permissionsJson);
    return this;
  }

  public Fixtures fixtures() {
    return fixtures;
  }
}
