package dev.kandev.recovery.workflows.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Non-secret record of how a session's git credentials were routed at launch; persisted as
 * {@code task_sessions.metadata.git_credential_snapshot} and carried in workflow history. It never
 * holds a lease token, JWT, installation token or private key.
 *
 * @param version always {@link #VERSION}
 * @param policy {@code none} or {@code github_app}
 * @param provider {@code github}
 * @param host git host, e.g. {@code github.com}
 * @param repository {@code owner/name}
 * @param installationId GitHub App installation, null for policy {@code none}
 * @param permissions GitHub App permission subset (name to {@code read}/{@code write}); empty for
 *     {@code none}
 * @param leaseId id of the credential lease, null when no lease was issued
 * @param expiresAt ISO-8601 instant the lease expires (renewed on use), null without a lease
 * @param source where the policy came from: {@code workspace}, {@code executor} or {@code default}
 *     (no policy row: {@code none})
 * @param capturedAt ISO-8601 instant the snapshot was taken
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GitCredentialSnapshot(
    int version,
    String policy,
    String provider,
    String host,
    String repository,
    Long installationId,
    Map<String, String> permissions,
    String leaseId,
    String expiresAt,
    String source,
    String capturedAt) {
  public static final int VERSION = 1;

  public GitCredentialSnapshot {
    // Sorted, so the JSON is the same on every run.
    permissions =
        permissions == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(permissions));
  }
}
