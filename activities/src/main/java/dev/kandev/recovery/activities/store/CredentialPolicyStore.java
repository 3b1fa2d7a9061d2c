package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.CredentialPolicy;
import dev.kandev.recovery.activities.credentials.ResolvedPolicy;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * The credential policy rows: {@code executor_credential_policies} and {@code
 * workspace_credential_policies}, read on the caller's transaction {@link Handle}. Which one wins is
 * the broker's {@code CredentialPolicyResolver}'s call.
 */
public final class CredentialPolicyStore {
  private static final TypeReference<Map<String, String>> PERMISSIONS = new TypeReference<>() {};

  private final ObjectMapper json;
  private final RowMapper<ResolvedPolicy> executorPolicy;
  private final RowMapper<ResolvedPolicy> workspacePolicy;

  public CredentialPolicyStore(ObjectMapper json) {
    this.json = json;
    this.executorPolicy = policyRow(ResolvedPolicy.SOURCE_EXECUTOR);
    this.workspacePolicy = policyRow(ResolvedPolicy.SOURCE_WORKSPACE);
  }

  public Optional<ResolvedPolicy> executorPolicy(Handle h, String executorId) {
    return policy(h, "SELECT policy, installation_id, permissions::text AS permissions"
        + " FROM executor_credential_policies WHERE executor_id = :id", executorId, executorPolicy);
  }

  public Optional<ResolvedPolicy> workspacePolicy(Handle h, String workspaceId) {
    return policy(h, "SELECT policy, installation_id, permissions::text AS permissions"
        + " FROM workspace_credential_policies WHERE workspace_id = :id", workspaceId, workspacePolicy);
  }

  private static Optional<ResolvedPolicy> policy(Handle h, String sql, String id, RowMapper<ResolvedPolicy> row) {
    return h.createQuery(sql).bind("id", id).map(row).findOne();
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
