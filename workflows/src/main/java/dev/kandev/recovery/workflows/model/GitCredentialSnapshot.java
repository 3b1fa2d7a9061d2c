package dev.kandev.recovery.workflows.model;

/** PLACEHOLDER until the credential broker branch lands; replaced by its version on merge. */
public record GitCredentialSnapshot(int version, String policy, String source, String leaseId) {}
