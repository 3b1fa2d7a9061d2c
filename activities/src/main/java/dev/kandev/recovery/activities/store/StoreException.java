package dev.kandev.recovery.activities.store;

/** A database failure: transient from the caller's point of view (retryable). */
public class StoreException extends RuntimeException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
