package dev.kandev.recovery.activities.credentials;

import java.util.Arrays;
import java.util.stream.Collectors;

/** How a session's git credentials are provided. */
public enum CredentialPolicy {
  /** No managed credential: no lease is issued and the snapshot says so. */
  NONE("none"),
  /** Short-lived GitHub App installation tokens, scoped to the repository, via a lease. */
  GITHUB_APP("github_app");

  private final String id;

  CredentialPolicy(String id) {
    this.id = id;
  }

  /** The name stored in the policy tables and the snapshot. */
  public String id() {
    return id;
  }

  public static CredentialPolicy parse(String id) {
    for (CredentialPolicy policy : values()) {
      if (policy.id.equals(id)) {
        return policy;
      }
    }
    throw new IllegalArgumentException(
        "unknown credential policy '" + id + "'; expected one of "
            + Arrays.stream(values()).map(CredentialPolicy::id).collect(Collectors.joining(", ")));
  }
}
