package dev.kandev.recovery.activities.runtime;

/** The targeted cache repair refused to act (unsafe path) or could not finish. */
public final class CacheRepairException extends Exception {
  public CacheRepairException(String message) {
    super(message);
  }

  public CacheRepairException(String message, Throwable cause) {
    super(message, cause);
  }
}
