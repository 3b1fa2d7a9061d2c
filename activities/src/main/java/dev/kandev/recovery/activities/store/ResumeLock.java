package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.Fence;
import java.time.Instant;

/** A held per-session resume lock. */
public record ResumeLock(String sessionId, String owner, Fence fence, Instant expiresAt) {}
