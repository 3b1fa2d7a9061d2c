package dev.kandev.recovery.worker;

/** The Temporal server of the settings cannot be used; the message says what to start or set. */
final class TemporalUnreachableException extends RuntimeException {
  TemporalUnreachableException(String message) {
    super(message);
  }
}
