package dev.kandev.recovery.activities.store;

import java.time.Instant;

/** A held per-session resume lock. */
public record ResumeLock(String sessionId, String owner, long fencingToken, Instant expiresAt) {
  public Fence fence() {
    return Fence.of(fencingToken);
  }
}
