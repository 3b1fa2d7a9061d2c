package dev.kandev.recovery.activities.store;

/** Kandev's tables lack a column we read or write, or have it with a type we do not handle. */
public final class KandevSchemaMismatchException extends RuntimeException {
  public KandevSchemaMismatchException(String message) {
    super(message);
  }
}
