package dev.kandev.recovery.activities.credentials;

import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import java.util.List;
import java.util.Objects;

/**
 * The non-secret result of issuing a session's leases for one resume attempt ({@code
 * CredentialBroker.issueForAttempt}): the lease ids (one per repository whose policy needs a lease)
 * and the snapshot of the task's primary repository (null when the task has no repository).
 *
 * @param reused whether these are the leases an earlier run of the same attempt issued
 */
public record AttemptLeases(List<String> leaseIds, GitCredentialSnapshot snapshot, boolean reused) {
  public AttemptLeases {
    leaseIds = List.copyOf(leaseIds);
  }

  /** What issuing {@code grants} gave: the first linked repository is the task's primary one. */
  public static AttemptLeases issued(List<LeaseGrant> grants) {
    return new AttemptLeases(grants.stream().map(LeaseGrant::leaseId).filter(Objects::nonNull).toList(),
        grants.isEmpty() ? null : grants.get(0).snapshot(), false);
  }
}
