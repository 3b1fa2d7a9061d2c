package dev.kandev.recovery.activities.credentials.broker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.credentials.ResolvedPolicy;
import dev.kandev.recovery.activities.store.CredentialPolicyStore;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * Which credential policy a session gets: the executor's override if the executor has a row in
 * {@code executor_credential_policies}, else the workspace's row in {@code
 * workspace_credential_policies}, else {@code none}. Read on every call, so a changed row changes
 * the policy of the next resume.
 */
public final class CredentialPolicyResolver {
  private final CredentialPolicyStore rows;

  public CredentialPolicyResolver(ObjectMapper json) {
    this.rows = new CredentialPolicyStore(json);
  }

  /** @param executorId the session's executor, or null when it has none */
  public ResolvedPolicy resolve(Handle h, String workspaceId, String executorId) {
    if (executorId != null && !executorId.isBlank()) {
      Optional<ResolvedPolicy> executor = rows.executorPolicy(h, executorId);
      if (executor.isPresent()) {
        return executor.get();
      }
    }
    return rows.workspacePolicy(h, workspaceId).orElse(ResolvedPolicy.none(ResolvedPolicy.SOURCE_DEFAULT));
  }
}
