package dev.kandev.recovery.activities.credentials;

import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import java.time.Instant;

/**
 * Non-secret result of issuing one repository's lease ({@code CredentialBroker.issueForSession}): what
 * workflow history may carry. For policy {@code none}, {@code leaseId} and {@code expiresAt} are null
 * and the snapshot says {@code none}.
 */
public record LeaseGrant(String leaseId, Instant expiresAt, GitCredentialSnapshot snapshot) {}
