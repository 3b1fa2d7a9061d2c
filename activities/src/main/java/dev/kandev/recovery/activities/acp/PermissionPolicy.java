package dev.kandev.recovery.activities.acp;

/**
 * How {@code session/request_permission} is answered: there is no user at the worker, so a policy
 * picks one of the offered options.
 */
public enum PermissionPolicy {
  /** Pick {@code allow_once}, else {@code allow_always}. */
  ALLOW,
  /** Pick {@code reject_once}, else {@code reject_always}. */
  REJECT;

  /** The kinds to look for, most preferred first. */
  String[] preferredKinds() {
    return this == ALLOW
        ? new String[] {"allow_once", "allow_always"}
        : new String[] {"reject_once", "reject_always"};
  }
}
