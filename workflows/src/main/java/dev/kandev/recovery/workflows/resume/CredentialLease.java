package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import java.util.List;

/**
 * The non-secret result of issuing the session's scoped credential leases: their ids (one per
 * linked repository; empty when the policy needs none) and the snapshot to persist (null when the
 * task has no repository). Lease tokens never leave the worker.
 */
public record CredentialLease(List<String> leaseIds, GitCredentialSnapshot snapshot) {
  public CredentialLease {
    leaseIds = leaseIds == null ? List.of() : List.copyOf(leaseIds);
  }

  public String describe() {
    return snapshot == null ? "no repository linked" : "policy " + snapshot.policy() + " from " + snapshot.source()
        + ", " + leaseIds.size() + " lease(s)";
  }
}
