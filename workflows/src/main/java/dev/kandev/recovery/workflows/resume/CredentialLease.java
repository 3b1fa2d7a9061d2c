package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;

/**
 * The non-secret result of issuing the scoped credential lease: its id (null when the policy needs
 * none) and the snapshot to persist. The lease token itself never leaves the worker.
 */
public record CredentialLease(String leaseId, GitCredentialSnapshot snapshot) {}
