package dev.kandev.recovery.activities.credentials;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** SQL of {@code credential_leases}. Every method runs inside the caller's transaction. */
final class LeaseStore {
  private static final String COLUMNS =
      "id, provider, workspace_id, task_id, session_id, repository_id, host, path, executor_id, binding::text,"
          + " ttl_seconds, expires_at, revoked_at, created_at";

  private final ObjectMapper json;

  LeaseStore(ObjectMapper json) {
    this.json = json;
  }

  void insert(Connection c, LeaseRecord lease) throws SQLException {
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO credential_leases (id, provider, workspace_id, task_id, session_id, repository_id, host, path,"
                + " executor_id, binding, ttl_seconds, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)")) {
      LeaseScope s = lease.scope();
      insert.setString(1, lease.id());
      insert.setString(2, s.provider());
      insert.setString(3, s.workspaceId());
      insert.setString(4, s.taskId());
      insert.setString(5, s.sessionId());
      insert.setString(6, s.repositoryId());
      insert.setString(7, s.host());
      insert.setString(8, s.path());
      insert.setString(9, lease.executorId());
      insert.setString(10, bindingJson(lease.binding()));
      insert.setLong(11, lease.ttl().toSeconds());
      insert.setTimestamp(12, Timestamp.from(lease.expiresAt()));
      insert.setTimestamp(13, Timestamp.from(lease.createdAt()));
      insert.executeUpdate();
    }
  }

  Optional<LeaseRecord> byIdForUpdate(Connection c, String leaseId) throws SQLException {
    return one(c, "SELECT " + COLUMNS + " FROM credential_leases WHERE id = ? FOR UPDATE", leaseId);
  }

  Optional<LeaseRecord> byTokenHash(Connection c, byte[] hash) throws SQLException {
    return one(c, "SELECT " + COLUMNS + " FROM credential_leases WHERE token_hash = ? FOR UPDATE", hash);
  }

  /** Stores the hash of a newly minted token (replacing any earlier one) and restarts the TTL. */
  void setTokenHash(Connection c, String leaseId, byte[] hash, Instant now, Instant expiresAt) throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement("UPDATE credential_leases SET token_hash = ?, minted_at = ?, expires_at = ? WHERE id = ?")) {
      update.setBytes(1, hash);
      update.setTimestamp(2, Timestamp.from(now));
      update.setTimestamp(3, Timestamp.from(expiresAt));
      update.setString(4, leaseId);
      update.executeUpdate();
    }
  }

  void renew(Connection c, String leaseId, Instant now, Instant expiresAt) throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement(
            "UPDATE credential_leases SET last_redeemed_at = ?, expires_at = ? WHERE id = ? AND revoked_at IS NULL")) {
      update.setTimestamp(1, Timestamp.from(now));
      update.setTimestamp(2, Timestamp.from(expiresAt));
      update.setString(3, leaseId);
      update.executeUpdate();
    }
  }

  boolean revoke(Connection c, String leaseId, Instant now) throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement("UPDATE credential_leases SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")) {
      update.setTimestamp(1, Timestamp.from(now));
      update.setString(2, leaseId);
      return update.executeUpdate() == 1;
    }
  }

  int revokeSession(Connection c, String sessionId, Instant now) throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement("UPDATE credential_leases SET revoked_at = ? WHERE session_id = ? AND revoked_at IS NULL")) {
      update.setTimestamp(1, Timestamp.from(now));
      update.setString(2, sessionId);
      return update.executeUpdate();
    }
  }

  /** Drops leases that expired or were revoked more than {@code keep} ago. */
  int sweep(Connection c, Instant now, Duration keep) throws SQLException {
    try (PreparedStatement delete =
        c.prepareStatement("DELETE FROM credential_leases WHERE expires_at < ? OR revoked_at < ?")) {
      Timestamp cutoff = Timestamp.from(now.minus(keep));
      delete.setTimestamp(1, cutoff);
      delete.setTimestamp(2, cutoff);
      return delete.executeUpdate();
    }
  }

  private Optional<LeaseRecord> one(Connection c, String sql, Object key) throws SQLException {
    try (PreparedStatement select = c.prepareStatement(sql)) {
      select.setObject(1, key);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        LeaseScope scope =
            new LeaseScope(rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6), rs.getString(7),
                rs.getString(8), rs.getString(2));
        Timestamp revoked = rs.getTimestamp(13);
        return Optional.of(
            new LeaseRecord(
                rs.getString(1), scope, rs.getString(9), binding(rs.getString(10)), Duration.ofSeconds(rs.getLong(11)),
                rs.getTimestamp(12).toInstant(), revoked == null ? null : revoked.toInstant(),
                rs.getTimestamp(14).toInstant()));
      }
    }
  }

  private String bindingJson(ResolvedPolicy binding) {
    ObjectNode node = json.createObjectNode();
    node.put("policy", binding.policy().id());
    node.put("source", binding.source());
    if (binding.installationId() != null) {
      node.put("installationId", binding.installationId());
    }
    ObjectNode permissions = node.putObject("permissions");
    binding.permissions().forEach(permissions::put);
    return node.toString();
  }

  private ResolvedPolicy binding(String text) {
    try {
      JsonNode node = json.readTree(text);
      Map<String, String> permissions = new LinkedHashMap<>();
      node.path("permissions").fields().forEachRemaining(e -> permissions.put(e.getKey(), e.getValue().asText()));
      JsonNode installation = node.get("installationId");
      return new ResolvedPolicy(
          CredentialPolicy.parse(node.path("policy").asText()),
          node.path("source").asText(),
          installation == null || installation.isNull() ? null : installation.asLong(),
          permissions);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("credential lease binding is not JSON", e);
    }
  }
}
