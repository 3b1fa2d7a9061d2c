package dev.kandev.recovery.activities.acp;

/** The agent's stdout reached EOF (or could not be written) before a request was answered. */
public final class AcpTransportClosedException extends Exception {
  public AcpTransportClosedException(String message) {
    super(message);
  }

  public AcpTransportClosedException(String message, Throwable cause) {
    super(message, cause);
  }
}
