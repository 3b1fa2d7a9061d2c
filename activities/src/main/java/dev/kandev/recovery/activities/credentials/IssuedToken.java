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
  private final Instant expiresAt;
  private final String token;

  IssuedToken(String leaseId, String host, Instant expiresAt, String token) {
    this.leaseId = Objects.requireNonNull(leaseId);
    this.host = Objects.requireNonNull(host);
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

  public Instant expiresAt() {
    return expiresAt;
  }

  /** The secret. */
  public String token() {
    return token;
  }

  @Override
  public String toString() {
    return "IssuedToken[leaseId=" + leaseId + ", host=" + host + ", expiresAt=" + expiresAt + ", token=<redacted>]";
  }
}
