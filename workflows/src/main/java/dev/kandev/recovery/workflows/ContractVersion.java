package dev.kandev.recovery.workflows;

/**
 * The version of the contract starters rely on (docs/contract.md "Contract version"): the workflow
 * names, payloads, failure types and search attributes. {@code MAJOR.MINOR}: a compatible change (one
 * an older starter of the same major never notices) raises the minor, any other change the major.
 */
public final class ContractVersion {
  public static final String CURRENT = "1.1";

  private ContractVersion() {}
}
