package dev.kandev.recovery.workflows.runtime;

/** Stable {@code ApplicationFailure} types of the runtime update; all are non-retryable. */
public final class RuntimeFailureTypes {
  /** The agent id is not in the built-in catalogue; nothing ran. */
  public static final String UNKNOWN_AGENT = "RUNTIME_UNKNOWN_AGENT";
  /** The update command failed (the first failure triggers the repair; the second is terminal). */
  public static final String UPDATE_FAILED = "RUNTIME_UPDATE_FAILED";
  /** The targeted {@code _npx} invalidation refused or failed; terminal. */
  public static final String CACHE_REPAIR_FAILED = "RUNTIME_CACHE_REPAIR_FAILED";
  /**
   * The repair activity's own type when it refused an unsafe target (nothing deleted); the
   * workflow then fails with {@link #CACHE_REPAIR_FAILED} and {@code repair: REFUSED}.
   */
  public static final String CACHE_REPAIR_REFUSED = "RUNTIME_CACHE_REPAIR_REFUSED";
  /** The ACP capability probe failed; terminal. */
  public static final String PROBE_FAILED = "RUNTIME_PROBE_FAILED";

  private RuntimeFailureTypes() {}
}
