package dev.kandev.recovery.activities.store;

/** The store's schema was moved on by a release whose changes this worker's code would break on. */
public final class IncompatibleSchemaException extends RuntimeException {
  public IncompatibleSchemaException(String message) {
    super(message);
  }
}
