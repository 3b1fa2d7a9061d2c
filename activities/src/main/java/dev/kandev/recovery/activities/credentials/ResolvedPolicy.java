package dev.kandev.recovery.activities.credentials;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The credential policy in force for a session, and where it came from. Non-secret: stored as a
 * lease's binding and copied into the snapshot.
 *
 * @param source {@code workspace}, {@code executor} or {@code default} (no policy row)
 * @param installationId GitHub App installation; null for {@link CredentialPolicy#NONE}
 * @param permissions GitHub App permission subset, sorted
 */
public record ResolvedPolicy(
    CredentialPolicy policy, String source, Long installationId, Map<String, String> permissions) {
  public static final String SOURCE_WORKSPACE = "workspace";
  public static final String SOURCE_EXECUTOR = "executor";
  public static final String SOURCE_DEFAULT = "default";

  public ResolvedPolicy {
    permissions =
        permissions == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(permissions));
  }

  public static ResolvedPolicy none(String source) {
    return new ResolvedPolicy(CredentialPolicy.NONE, source, null, Map.of());
  }
}
