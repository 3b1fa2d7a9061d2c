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
   * How long a run's release is remembered: far longer than any stall a worker comes back from (a
   * stale task found after it is stopped by the next acquisition instead, see {@link #takeOver}).
   */
  public static final Duration RELEASES_KEPT = Duration.ofDays(7);
  private static final int RELEASES_PRUNED_PER_RELEASE = 100;

  /**
   * SQL: the resume lock of session {@code s} carries the fence bound as {@code :fence}, or the
   * write is not fenced ({@link Fence#none()}, a negative token). The token only: the write's {@link
   * #holds} checked its workflow task, in the same transaction.
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
            + "   workflow_task = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > now()"
            + "                        THEN l.workflow_task END,"
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

  /**
   * Releases the lock if {@code owner} holds it; true if it did. Releasing twice is harmless. A run
   * releases its lock once, as it ends, so the release also records that {@code owner} is done with
   * the session ({@link #releasedBy}), and prunes a batch of such records older than {@link
   * #RELEASES_KEPT}.
   */
  public boolean release(Handle h, String sessionId, String owner) {
    boolean released = h.createUpdate("DELETE FROM resume_locks WHERE session_id = :sessionId AND owner = :owner")
        .bind("sessionId", sessionId)
        .bind("owner", owner)
        .execute() == 1;
    recordReleased(h, sessionId, owner);
    h.createUpdate("DELETE FROM released_resume_locks WHERE owner IN (SELECT owner FROM released_resume_locks"
            + " WHERE released_at < now() - :keptMillis * interval '1 millisecond'"
            + " ORDER BY released_at LIMIT " + RELEASES_PRUNED_PER_RELEASE + " FOR UPDATE SKIP LOCKED)")
        .bind("keptMillis", RELEASES_KEPT.toMillis())
        .execute();
    return released;
  }

  /**
   * Whether {@code owner} released a lock of this store already: its run ended (or, for a release
   * made by {@code StaleStartingRecovery}, was found ended). A workflow task of that run still running
   * on a worker that stalled is stale and must not take a lock again.
   */
  public boolean releasedBy(Handle h, String owner) {
    return h.createQuery("SELECT EXISTS (SELECT 1 FROM released_resume_locks WHERE owner = :owner)")
        .bind("owner", owner)
        .mapTo(Boolean.class)
        .one();
  }

  /**
   * Takes over {@code ended}, the lock of a run that has ended without releasing it (terminated, or a
   * stale task of it took the lock after its end), for {@code owner} under a new fence; the ended run
   * is recorded as released. Empty if the lock no longer carries {@code ended}'s fence.
   */
  public Optional<ResumeLock> takeOver(Handle h, ResumeLock ended, String owner, Duration ttl) {
    requireTtl(ttl);
    Optional<ResumeLock> taken = h.createQuery("UPDATE resume_locks SET owner = :owner,"
            + " fencing_token = nextval('resume_lock_fencing_seq'), acquired_at = now(), workflow_task = NULL,"
            + " expires_at = now() + :ttlMillis * interval '1 millisecond'"
            + " WHERE session_id = :sessionId AND fencing_token = :fence"
            + " RETURNING session_id, owner, fencing_token, expires_at")
        .bind("sessionId", ended.sessionId())
        .bind("fence", ended.fence().token())
        .bind("owner", owner)
        .bind("ttlMillis", ttl.toMillis())
        .map(RESUME_LOCK)
        .findOne();
    taken.ifPresent(lock -> recordReleased(h, ended.sessionId(), ended.owner()));
    return taken;
  }

  private static void recordReleased(Handle h, String sessionId, String owner) {
    h.createUpdate("INSERT INTO released_resume_locks (owner, session_id) VALUES (:owner, :sessionId)"
            + " ON CONFLICT (owner) DO NOTHING")
        .bind("owner", owner)
        .bind("sessionId", sessionId)
        .execute();
  }

  /**
   * Whether the session's lock still carries {@code fence} (no newer holder took it over); always
   * true for {@link Fence#none()}, which a write not made under a lock carries. A stamped fence must
   * also come from a workflow task no older than the newest one that wrote under the lock, which it
   * then becomes: a stale copy of an earlier task of the same run (its worker back from a stall)
   * holds the lock no more. Call it in the transaction of the write it allows.
   */
  public static boolean holds(Handle h, String sessionId, Fence fence) {
    if (fence.isNone()) {
      return true;
    }
    if (!fence.isStamped()) {
      return h.createQuery(
              "SELECT EXISTS (SELECT 1 FROM resume_locks WHERE session_id = :sessionId AND fencing_token = :fence)")
          .bind("sessionId", sessionId)
          .bind("fence", fence.token())
          .mapTo(Boolean.class)
          .one();
    }
    return h.createUpdate("UPDATE resume_locks SET workflow_task = :task WHERE session_id = :sessionId"
            + " AND fencing_token = :fence AND (workflow_task IS NULL OR workflow_task <= :task)")
        .bind("sessionId", sessionId)
        .bind("fence", fence.token())
        .bind("task", fence.workflowTask())
        .execute() == 1;
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
