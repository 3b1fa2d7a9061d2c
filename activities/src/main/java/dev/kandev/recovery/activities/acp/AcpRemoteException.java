package dev.kandev.recovery.activities.acp;

/** The peer answered a request with a JSON-RPC error. */
public final class AcpRemoteException extends Exception {
  private final AcpError error;

  public AcpRemoteException(String method, AcpError error) {
    super(method + " failed: " + error.describe());
    this.error = error;
  }

  public AcpError error() {
    return error;
  }
}
