package dev.kandev.recovery.activities.credentials;

import java.time.Duration;
import java.time.Instant;

/** A stored lease row (its token hash is never read back out). */
public record LeaseRecord(
    String id,
    LeaseScope scope,
    String executorId,
    ResolvedPolicy binding,
    Duration ttl,
    Instant expiresAt,
    Instant revokedAt,
    Instant createdAt) {

  /** Why the lease can no longer be used at {@code now}, or null if it can. */
  public String unusableReason(Instant now) {
    if (revokedAt != null) {
      return "lease " + id + " is revoked";
    }
    if (!now.isBefore(expiresAt)) {
      return "lease " + id + " has expired";
    }
    return null;
  }
}
