package dev.kandev.recovery.activities.credentials;

import java.time.Instant;
import java.util.Objects;

/**
 * The secret lease token minted for the launch step, which passes it to the agent child only
 * through its environment. Never return it from an activity, log it or put it in a payload; {@link
 * #toString()} does not print it.
 */
public final class IssuedToken {
  private final String leaseId;
  private final String host;
  private final String path;
  private final Instant expiresAt;
  private final String token;

  public IssuedToken(String leaseId, String host, String path, Instant expiresAt, String token) {
    this.leaseId = Objects.requireNonNull(leaseId);
    this.host = Objects.requireNonNull(host);
    this.path = Objects.requireNonNull(path);
    this.expiresAt = Objects.requireNonNull(expiresAt);
    this.token = Objects.requireNonNull(token);
  }

  public String leaseId() {
    return leaseId;
  }

  /** The git host the lease is for, used to scope the child's credential helper config. */
  public String host() {
    return host;
  }

  /** The repository's canonical path {@code /owner/name}. */
  public String path() {
    return path;
  }

  public Instant expiresAt() {
    return expiresAt;
  }

  /** The secret. */
  public String token() {
    return token;
  }

  @Override
  public String toString() {
    return "IssuedToken[leaseId=" + leaseId + ", host=" + host + ", path=" + path + ", expiresAt=" + expiresAt + ", token=<redacted>]";
  }
}
