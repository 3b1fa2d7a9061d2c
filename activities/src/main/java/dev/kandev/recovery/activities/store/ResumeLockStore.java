package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.Fence;
import java.time.Duration;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * The per-session resume lock: one row per session with an owner, an expiry and a fencing token
 * drawn from a sequence, so every acquisition gets a strictly larger token than any before it.
 * Every method runs on the caller's transaction {@link Handle}.
 */
public final class ResumeLockStore {
  /**
   * SQL: the resume lock of session {@code s} carries the fence bound as {@code :fence}, or the
   * write is not fenced ({@link Fence#none()}, a negative token).
   */
  public static final String FENCE_HELD_ON_S = "(:fence < 0 OR EXISTS (SELECT 1 FROM resume_locks l"
      + " WHERE l.session_id = s.id AND l.fencing_token = :fence))";

  static final RowMapper<ResumeLock> RESUME_LOCK = (rs, ctx) -> new ResumeLock(
      rs.getString("session_id"), rs.getString("owner"), Fence.of(rs.getLong("fencing_token")),
      rs.getTimestamp("expires_at").toInstant());

  /**
   * Takes the lock if it is free, expired, or already held by {@code owner} (then the same token is
   * kept and the expiry extended, so a retried acquisition is idempotent). Empty if someone else
   * holds it.
   */
  public Optional<ResumeLock> acquire(Handle h, String sessionId, String owner, Duration ttl) {
    requireTtl(ttl);
    return h.createQuery("INSERT INTO resume_locks AS l (session_id, owner, fencing_token, expires_at)"
            + " VALUES (:sessionId, :owner, nextval('resume_lock_fencing_seq'), now() + :ttlMillis * interval '1 millisecond')"
            + " ON CONFLICT (session_id) DO UPDATE SET"
            + "   fencing_token = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > now()"
            + "                        THEN l.fencing_token ELSE EXCLUDED.fencing_token END,"
            + "   acquired_at = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > now()"
            + "                      THEN l.acquired_at ELSE now() END,"
            + "   owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at"
            + " WHERE l.owner = EXCLUDED.owner OR l.expires_at <= now()"
            + " RETURNING session_id, owner, fencing_token, expires_at")
        .bind("sessionId", sessionId)
        .bind("owner", owner)
        .bind("ttlMillis", ttl.toMillis())
        .map(RESUME_LOCK)
        .findOne();
  }

  /**
   * Holds the lock again for {@code owner} under the fence it had, if nobody holds it now (its
   * release was lost with its result, see the settle); true if the lock carries {@code fence} after
   * the call. A fence is never reused by anyone else, so no other holder's writes are let through.
   */
  public boolean reclaim(Handle h, String sessionId, String owner, Fence fence, Duration ttl) {
    requireTtl(ttl);
    h.createUpdate("INSERT INTO resume_locks (session_id, owner, fencing_token, expires_at)"
            + " VALUES (:sessionId, :owner, :fence, now() + :ttlMillis * interval '1 millisecond')"
            + " ON CONFLICT (session_id) DO NOTHING")
        .bind("sessionId", sessionId)
        .bind("owner", owner)
        .bind("fence", fence.token())
        .bind("ttlMillis", ttl.toMillis())
        .execute();
    return holds(h, sessionId, fence);
  }

  /** Releases the lock if {@code owner} holds it; true if it did. Releasing twice is harmless. */
  public boolean release(Handle h, String sessionId, String owner) {
    return h.createUpdate("DELETE FROM resume_locks WHERE session_id = :sessionId AND owner = :owner")
        .bind("sessionId", sessionId)
        .bind("owner", owner)
        .execute() == 1;
  }

  /**
   * Whether the session's lock still carries {@code fence} (no newer holder took it over); always
   * true for {@link Fence#none()}, which a write not made under a lock carries.
   */
  public static boolean holds(Handle h, String sessionId, Fence fence) {
    return fence.isNone() || h.createQuery(
            "SELECT EXISTS (SELECT 1 FROM resume_locks WHERE session_id = :sessionId AND fencing_token = :fence)")
        .bind("sessionId", sessionId)
        .bind("fence", fence.token())
        .mapTo(Boolean.class)
        .one();
  }

  /** The current holder, expired or not. */
  public Optional<ResumeLock> current(Handle h, String sessionId) {
    return h.createQuery("SELECT session_id, owner, fencing_token, expires_at FROM resume_locks WHERE session_id = :sessionId")
        .bind("sessionId", sessionId)
        .map(RESUME_LOCK)
        .findOne();
  }

  static void requireTtl(Duration ttl) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("a resume lock needs a positive time to live, got " + ttl);
    }
  }
}
