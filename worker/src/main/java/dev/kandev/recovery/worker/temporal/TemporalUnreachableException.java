package dev.kandev.recovery.worker.temporal;

/** The Temporal server of the settings cannot be used; the message says what to start or set. */
public final class TemporalUnreachableException extends RuntimeException {
  TemporalUnreachableException(String message) {
    super(message);
  }
}
