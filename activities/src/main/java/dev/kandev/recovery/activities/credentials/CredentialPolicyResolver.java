package dev.kandev.recovery.activities.credentials;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.store.Sql;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Which credential policy a session gets: the executor's override if the executor has a row in
 * {@code executor_credential_policies}, else the workspace's row in {@code
 * workspace_credential_policies}, else {@code none}. Read on every call, so a changed row changes
 * the policy of the next resume.
 */
public final class CredentialPolicyResolver {
  private static final TypeReference<Map<String, String>> PERMISSIONS = new TypeReference<>() {};

  private final DataSource dataSource;
  private final ObjectMapper json;

  public CredentialPolicyResolver(DataSource dataSource, ObjectMapper json) {
    this.dataSource = dataSource;
    this.json = json;
  }

  /** @param executorId the session's executor, or null when it has none */
  public ResolvedPolicy resolve(String workspaceId, String executorId) {
    return Sql.inTransaction(dataSource, "resolve credential policy of workspace " + workspaceId,
        c -> resolve(c, workspaceId, executorId));
  }

  ResolvedPolicy resolve(Connection c, String workspaceId, String executorId) throws SQLException {
    if (executorId != null && !executorId.isBlank()) {
      Optional<ResolvedPolicy> executor =
          read(c, "SELECT policy, installation_id, permissions FROM executor_credential_policies WHERE executor_id = ?",
              executorId, ResolvedPolicy.SOURCE_EXECUTOR);
      if (executor.isPresent()) {
        return executor.get();
      }
    }
    return read(c, "SELECT policy, installation_id, permissions FROM workspace_credential_policies WHERE workspace_id = ?",
            workspaceId, ResolvedPolicy.SOURCE_WORKSPACE)
        .orElse(ResolvedPolicy.none(ResolvedPolicy.SOURCE_DEFAULT));
  }

  private Optional<ResolvedPolicy> read(Connection c, String sql, String id, String source) throws SQLException {
    try (PreparedStatement select = c.prepareStatement(sql)) {
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        CredentialPolicy policy = CredentialPolicy.parse(rs.getString(1));
        if (policy == CredentialPolicy.NONE) {
          return Optional.of(ResolvedPolicy.none(source));
        }
        long installation = rs.getLong(2);
        Long installationId = rs.wasNull() ? null : installation;
        return Optional.of(new ResolvedPolicy(policy, source, installationId, permissions(rs.getString(3))));
      }
    }
  }

  private Map<String, String> permissions(String text) {
    try {
      return json.readValue(text, PERMISSIONS);
    } catch (IOException e) {
      throw CredentialException.configInvalid("credential policy permissions must map names to read/write", null);
    }
  }
}
