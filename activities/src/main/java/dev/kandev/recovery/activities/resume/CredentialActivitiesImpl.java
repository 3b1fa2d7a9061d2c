package dev.kandev.recovery.activities.resume;

import dev.kandev.recovery.activities.credentials.AttemptLeases;
import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.CredentialFailures;
import dev.kandev.recovery.activities.credentials.LeaseGrant;
import dev.kandev.recovery.activities.credentials.broker.CredentialBroker;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.resume.CredentialActivities;
import dev.kandev.recovery.workflows.resume.CredentialLease;
import java.util.List;
import java.util.Objects;

public final class CredentialActivitiesImpl implements CredentialActivities {
  private final CredentialBroker broker;

  public CredentialActivitiesImpl(CredentialBroker broker) {
    this.broker = broker;
  }

  @Override
  public CredentialLease issueCredentialLease(String sessionId) {
    try {
      // Under the session's executor's policy if it has one, else the workspace's.
      List<LeaseGrant> grants = broker.issueForSession(sessionId, CredentialBroker.DEFAULT_TTL);
      if (grants.isEmpty()) {
        return new CredentialLease(List.of(), null);
      }
      List<String> leaseIds = grants.stream().map(LeaseGrant::leaseId).filter(Objects::nonNull).toList();
      // The first linked repository is the task's primary one; its routing is what the task shows.
      return new CredentialLease(leaseIds, grants.get(0).snapshot());
    } catch (CredentialException e) {
      throw CredentialFailures.toApplicationFailure(e);
    }
  }

  @Override
  public CredentialLease issueCredentialLeaseForAttempt(String sessionId, Fence fence) {
    try {
      AttemptLeases leases = broker.issueForAttempt(sessionId, Fence.orNone(fence), CredentialBroker.DEFAULT_TTL);
      return new CredentialLease(leases.leaseIds(), leases.snapshot());
    } catch (CredentialException e) {
      throw CredentialFailures.toApplicationFailure(e);
    }
  }

  @Override
  public void revokeCredentialLeases(String sessionId) {
    broker.revokeSession(sessionId);
  }

  @Override
  public void revokeAttemptLeases(String sessionId, Fence fence) {
    if (fence == null || fence.isNone()) {
      throw FailureType.INVALID_REQUEST.failure("revoking a resume attempt's leases needs its fence; the payload had none");
    }
    broker.revokeAttempt(sessionId, fence);
  }
}
