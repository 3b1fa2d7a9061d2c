package dev.kandev.recovery.worker.dev;

/** Why {@code dev} could not provide a Temporal server, in one line meant for the user. */
public final class DevServerException extends RuntimeException {
  public DevServerException(String message) {
    super(message);
  }
}
