package dev.kandev.recovery.activities.credentials;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * Which credential policy a session gets: the executor's override if the executor has a row in
 * {@code executor_credential_policies}, else the workspace's row in {@code
 * workspace_credential_policies}, else {@code none}. Read on every call, so a changed row changes
 * the policy of the next resume.
 */
public final class CredentialPolicyResolver {
  private static final TypeReference<Map<String, String>> PERMISSIONS = new TypeReference<>() {};

  private final RowMapper<ResolvedPolicy> executorPolicy;
  private final RowMapper<ResolvedPolicy> workspacePolicy;
  private final ObjectMapper json;

  public CredentialPolicyResolver(ObjectMapper json) {
    this.json = json;
    this.executorPolicy = policyRow(ResolvedPolicy.SOURCE_EXECUTOR);
    this.workspacePolicy = policyRow(ResolvedPolicy.SOURCE_WORKSPACE);
  }

  /** @param executorId the session's executor, or null when it has none */
  public ResolvedPolicy resolve(Handle h, String workspaceId, String executorId) {
    if (executorId != null && !executorId.isBlank()) {
      Optional<ResolvedPolicy> executor = h.createQuery("SELECT policy, installation_id, permissions::text AS permissions"
              + " FROM executor_credential_policies WHERE executor_id = :executorId")
          .bind("executorId", executorId)
          .map(executorPolicy)
          .findOne();
      if (executor.isPresent()) {
        return executor.get();
      }
    }
    return h.createQuery("SELECT policy, installation_id, permissions::text AS permissions"
            + " FROM workspace_credential_policies WHERE workspace_id = :workspaceId")
        .bind("workspaceId", workspaceId)
        .map(workspacePolicy)
        .findOne()
        .orElse(ResolvedPolicy.none(ResolvedPolicy.SOURCE_DEFAULT));
  }

  /** One mapper for the rows of both policy tables; {@code source} says which table it reads. */
  private RowMapper<ResolvedPolicy> policyRow(String source) {
    return (rs, ctx) -> {
      CredentialPolicy policy = CredentialPolicy.parse(rs.getString("policy"));
      return policy == CredentialPolicy.NONE
          ? ResolvedPolicy.none(source)
          : new ResolvedPolicy(policy, source, rs.getObject("installation_id", Long.class), permissions(rs.getString("permissions")));
    };
  }

  private Map<String, String> permissions(String text) {
    try {
      return json.readValue(text, PERMISSIONS);
    } catch (IOException e) {
      throw CredentialException.configInvalid("credential policy permissions must map names to read/write", null);
    }
  }
}
