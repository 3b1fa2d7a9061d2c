package dev.kandev.recovery.activities.runtime;

/** The targeted cache repair refused to act (unsafe target, nothing deleted) or could not finish. */
public final class CacheRepairException extends Exception {
  private final boolean refused;

  private CacheRepairException(String message, Throwable cause, boolean refused) {
    super(message, cause);
    this.refused = refused;
  }

  /** An unsafe or unusable target: nothing was deleted. */
  static CacheRepairException refused(String message) {
    return new CacheRepairException(message, null, true);
  }

  static CacheRepairException refused(String message, Throwable cause) {
    return new CacheRepairException(message, cause, true);
  }

  /** The repair could not finish (npm named no root, a removal failed). */
  static CacheRepairException failed(String message, Throwable cause) {
    return new CacheRepairException(message, cause, false);
  }

  public boolean refused() {
    return refused;
  }
}
