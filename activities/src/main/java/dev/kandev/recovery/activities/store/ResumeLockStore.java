package dev.kandev.recovery.activities.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The per-session resume lock: one row per session with an owner, an expiry and a fencing token
 * drawn from a sequence, so every acquisition gets a strictly larger token than any before it.
 */
public final class ResumeLockStore {
  private final DataSource dataSource;

  public ResumeLockStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Takes the lock if it is free, expired, or already held by {@code owner} (then the same token is
   * kept and the expiry extended, so a retried acquisition is idempotent). Empty if someone else
   * holds it.
   */
  public Optional<ResumeLock> acquire(String sessionId, String owner, Duration ttl) {
    requireTtl(ttl);
    return Sql.inTransaction(
        dataSource,
        "acquire resume lock of session " + sessionId,
        c -> {
          try (PreparedStatement upsert =
              c.prepareStatement(
                  "INSERT INTO resume_locks AS l (session_id, owner, fencing_token, expires_at)"
                      + " VALUES (?, ?, nextval('resume_lock_fencing_seq'), now() + ? * interval '1 millisecond')"
                      + " ON CONFLICT (session_id) DO UPDATE SET"
                      + "   fencing_token = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > now()"
                      + "                        THEN l.fencing_token ELSE EXCLUDED.fencing_token END,"
                      + "   acquired_at = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > now()"
                      + "                      THEN l.acquired_at ELSE now() END,"
                      + "   owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at"
                      + " WHERE l.owner = EXCLUDED.owner OR l.expires_at <= now()"
                      + " RETURNING session_id, owner, fencing_token, expires_at")) {
            upsert.setString(1, sessionId);
            upsert.setString(2, owner);
            upsert.setLong(3, ttl.toMillis());
            return single(upsert);
          }
        });
  }

  /** Extends the lock if {@code owner} still holds it with that token. */
  public Optional<ResumeLock> renew(ResumeLock lock, Duration ttl) {
    requireTtl(ttl);
    return Sql.inTransaction(
        dataSource,
        "renew resume lock of session " + lock.sessionId(),
        c -> {
          try (PreparedStatement update =
              c.prepareStatement(
                  "UPDATE resume_locks SET expires_at = now() + ? * interval '1 millisecond'"
                      + " WHERE session_id = ? AND owner = ? AND fencing_token = ?"
                      + " RETURNING session_id, owner, fencing_token, expires_at")) {
            update.setLong(1, ttl.toMillis());
            update.setString(2, lock.sessionId());
            update.setString(3, lock.owner());
            update.setLong(4, lock.fencingToken());
            return single(update);
          }
        });
  }

  /** Releases the lock if {@code owner} holds it; true if it did. Releasing twice is harmless. */
  public boolean release(String sessionId, String owner) {
    return Sql.inTransaction(
        dataSource,
        "release resume lock of session " + sessionId,
        c -> {
          try (PreparedStatement delete =
              c.prepareStatement("DELETE FROM resume_locks WHERE session_id = ? AND owner = ?")) {
            delete.setString(1, sessionId);
            delete.setString(2, owner);
            return delete.executeUpdate() == 1;
          }
        });
  }

  /** Whether the session's lock still carries {@code fence} (no newer holder took it over). */
  public boolean holds(String sessionId, Fence fence) {
    return current(sessionId).map(lock -> lock.fencingToken() == fence.token()).orElse(false);
  }

  /** The current holder, expired or not. */
  public Optional<ResumeLock> current(String sessionId) {
    return Sql.inTransaction(
        dataSource,
        "read resume lock of session " + sessionId,
        c -> {
          try (PreparedStatement select =
              c.prepareStatement(
                  "SELECT session_id, owner, fencing_token, expires_at FROM resume_locks WHERE session_id = ?")) {
            select.setString(1, sessionId);
            return single(select);
          }
        });
  }

  private static Optional<ResumeLock> single(PreparedStatement statement) throws java.sql.SQLException {
    try (ResultSet rs = statement.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(
          new ResumeLock(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getTimestamp(4).toInstant()));
    }
  }

  private static void requireTtl(Duration ttl) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("a resume lock needs a positive time to live, got " + ttl);
    }
  }
}
