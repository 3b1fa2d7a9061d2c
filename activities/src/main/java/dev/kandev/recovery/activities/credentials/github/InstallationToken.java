package dev.kandev.recovery.activities.credentials.github;

import java.time.Instant;

/** A GitHub App installation access token. Secret: kept in memory only; never printed. */
record InstallationToken(String token, Instant expiresAt) {
  @Override
  public String toString() {
    return "InstallationToken[token=<redacted>, expiresAt=" + expiresAt + "]";
  }
}
