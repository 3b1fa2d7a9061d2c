package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.credentials.AttemptLeases;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * SQL of {@code credential_lease_attempts}: which leases the lease step of a resume attempt (session
 * and fence) issued. Every method runs on the caller's transaction {@link Handle}; {@link
 * LeaseStore#sweep} drops old rows with the leases.
 */
public final class LeaseAttemptStore {
  private final ObjectMapper json;

  public LeaseAttemptStore(ObjectMapper json) {
    this.json = json;
  }

  /** The attempt's earlier result, its row locked until the caller's transaction ends. */
  public Optional<AttemptLeases> forUpdate(Handle h, String sessionId, Fence fence) {
    return h.createQuery("SELECT lease_ids, snapshot::text AS snapshot FROM credential_lease_attempts"
            + " WHERE session_id = :sessionId AND fence = :fence FOR UPDATE")
        .bind("sessionId", sessionId)
        .bind("fence", fence.token())
        .map((rs, ctx) -> new AttemptLeases(List.of((String[]) rs.getArray("lease_ids").getArray()),
            snapshot(rs.getString("snapshot")), true))
        .findOne();
  }

  /**
   * Records the attempt's first result. A concurrent run of the same attempt that recorded first
   * makes this insert fail, and the caller's transaction (with the leases it issued) roll back.
   */
  public void insert(Handle h, String sessionId, Fence fence, AttemptLeases leases, Instant now) {
    write(h, "INSERT INTO credential_lease_attempts (session_id, fence, lease_ids, snapshot, created_at)"
        + " VALUES (:sessionId, :fence, :leaseIds, CAST(:snapshot AS jsonb), :now)", sessionId, fence, leases, now);
  }

  /** Replaces the attempt's result (its earlier leases could no longer be used). */
  public void replace(Handle h, String sessionId, Fence fence, AttemptLeases leases, Instant now) {
    write(h, "UPDATE credential_lease_attempts SET lease_ids = :leaseIds, snapshot = CAST(:snapshot AS jsonb),"
        + " created_at = :now WHERE session_id = :sessionId AND fence = :fence", sessionId, fence, leases, now);
  }

  private void write(Handle h, String sql, String sessionId, Fence fence, AttemptLeases leases, Instant now) {
    h.createUpdate(sql)
        .bind("sessionId", sessionId)
        .bind("fence", fence.token())
        .bind("leaseIds", leases.leaseIds().toArray(String[]::new))
        .bind("snapshot", snapshotJson(leases.snapshot()))
        .bind("now", now)
        .execute();
  }

  private String snapshotJson(GitCredentialSnapshot snapshot) {
    if (snapshot == null) {
      return null;
    }
    try {
      return json.writeValueAsString(snapshot);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a git credential snapshot does not serialize", e);
    }
  }

  private GitCredentialSnapshot snapshot(String text) {
    if (text == null) {
      return null;
    }
    try {
      return json.readValue(text, GitCredentialSnapshot.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a recorded git credential snapshot is not JSON", e);
    }
  }
}
