package dev.kandev.recovery.activities.credentials;

/** Turns an authorized lease into the live credential of its policy. */
public interface CredentialResolver {
  /** The policy this resolver serves. */
  CredentialPolicy policy();

  /**
   * Checks at issuance that the policy can work (configuration present and usable), so a
   * misconfiguration fails before launch with {@link CredentialException#CONFIG_MISSING} or {@link
   * CredentialException#CONFIG_INVALID}.
   */
  void validate(ResolvedPolicy policy);

  /** The live credential (secret, never stored) for {@code scope} under {@code policy}. */
  GitCredential resolve(LeaseScope scope, ResolvedPolicy policy);
}
