package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.activities.credentials.CredentialPolicy;
import dev.kandev.recovery.activities.credentials.LeaseRecord;
import dev.kandev.recovery.activities.credentials.LeaseScope;
import dev.kandev.recovery.activities.credentials.ResolvedPolicy;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/** SQL of {@code credential_leases}. Every method runs on the caller's transaction {@link Handle}. */
public final class LeaseStore {
  private static final String COLUMNS =
      "id, provider, workspace_id, task_id, session_id, repository_id, host, path, executor_id, binding::text AS binding,"
          + " ttl_seconds, expires_at, revoked_at, created_at";

  private final ObjectMapper json;
  private final RowMapper<LeaseRecord> leaseRecord;

  public LeaseStore(ObjectMapper json) {
    this.json = json;
    this.leaseRecord = (rs, ctx) -> new LeaseRecord(
        rs.getString("id"),
        new LeaseScope(rs.getString("workspace_id"), rs.getString("task_id"), rs.getString("session_id"),
            rs.getString("repository_id"), rs.getString("host"), rs.getString("path"), rs.getString("provider")),
        rs.getString("executor_id"),
        binding(rs.getString("binding")),
        Duration.ofSeconds(rs.getLong("ttl_seconds")),
        rs.getTimestamp("expires_at").toInstant(),
        Optional.ofNullable(rs.getTimestamp("revoked_at")).map(Timestamp::toInstant).orElse(null),
        rs.getTimestamp("created_at").toInstant());
  }

  public void insert(Handle h, LeaseRecord lease) {
    LeaseScope s = lease.scope();
    h.createUpdate("INSERT INTO credential_leases (id, provider, workspace_id, task_id, session_id, repository_id, host,"
            + " path, executor_id, binding, ttl_seconds, expires_at, created_at) VALUES (:id, :provider, :workspaceId,"
            + " :taskId, :sessionId, :repositoryId, :host, :path, :executorId, :binding::jsonb, :ttlSeconds, :expiresAt,"
            + " :createdAt)")
        .bind("id", lease.id())
        .bind("provider", s.provider())
        .bind("workspaceId", s.workspaceId())
        .bind("taskId", s.taskId())
        .bind("sessionId", s.sessionId())
        .bind("repositoryId", s.repositoryId())
        .bind("host", s.host())
        .bind("path", s.path())
        .bind("executorId", lease.executorId())
        .bind("binding", bindingJson(lease.binding()))
        .bind("ttlSeconds", lease.ttl().toSeconds())
        .bind("expiresAt", lease.expiresAt())
        .bind("createdAt", lease.createdAt())
        .execute();
  }

  public Optional<LeaseRecord> byIdForUpdate(Handle h, String leaseId) {
    return h.createQuery("SELECT " + COLUMNS + " FROM credential_leases WHERE id = :id FOR UPDATE")
        .bind("id", leaseId)
        .map(leaseRecord)
        .findOne();
  }

  public Optional<LeaseRecord> byTokenHash(Handle h, byte[] hash) {
    return h.createQuery("SELECT " + COLUMNS + " FROM credential_leases WHERE token_hash = :hash FOR UPDATE")
        .bind("hash", hash)
        .map(leaseRecord)
        .findOne();
  }

  /** Stores the hash of a newly minted token (replacing any earlier one) and restarts the TTL. */
  public void setTokenHash(Handle h, String leaseId, byte[] hash, Instant now, Instant expiresAt) {
    h.createUpdate("UPDATE credential_leases SET token_hash = :hash, minted_at = :now, expires_at = :expiresAt WHERE id = :id")
        .bind("hash", hash)
        .bind("now", now)
        .bind("expiresAt", expiresAt)
        .bind("id", leaseId)
        .execute();
  }

  public void renew(Handle h, String leaseId, Instant now, Instant expiresAt) {
    h.createUpdate("UPDATE credential_leases SET last_redeemed_at = :now, expires_at = :expiresAt"
            + " WHERE id = :id AND revoked_at IS NULL")
        .bind("now", now)
        .bind("expiresAt", expiresAt)
        .bind("id", leaseId)
        .execute();
  }

  public boolean revoke(Handle h, String leaseId, Instant now) {
    return h.createUpdate("UPDATE credential_leases SET revoked_at = :now WHERE id = :id AND revoked_at IS NULL")
        .bind("now", now)
        .bind("id", leaseId)
        .execute() == 1;
  }

  public int revokeSession(Handle h, String sessionId, Instant now) {
    return h.createUpdate("UPDATE credential_leases SET revoked_at = :now WHERE session_id = :sessionId AND revoked_at IS NULL")
        .bind("now", now)
        .bind("sessionId", sessionId)
        .execute();
  }

  /**
   * Drops leases that expired or were revoked more than {@code keep} ago, and the resume attempts'
   * records ({@code credential_lease_attempts}) made more than {@code keep} ago: their attempts ended
   * long since. Returns how many leases went.
   */
  public int sweep(Handle h, Instant now, Duration keep) {
    Instant cutoff = now.minus(keep);
    h.createUpdate("DELETE FROM credential_lease_attempts WHERE created_at < :cutoff").bind("cutoff", cutoff).execute();
    return h.createUpdate("DELETE FROM credential_leases WHERE expires_at < :cutoff OR revoked_at < :cutoff")
        .bind("cutoff", cutoff)
        .execute();
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
