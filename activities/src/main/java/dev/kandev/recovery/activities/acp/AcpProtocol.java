package dev.kandev.recovery.activities.acp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * The client → agent session requests of ACP v1 with their exact wire names (schema of
 * {@code @agentclientprotocol/sdk} 2.4.0, protocol version 1); {@code initialize} is {@link
 * AcpHandshake}.
 */
public final class AcpProtocol {
  private final AcpConnection connection;
  private final ObjectMapper json;

  public AcpProtocol(AcpConnection connection, ObjectMapper json) {
    this.connection = connection;
    this.json = json;
  }

  public void loadSession(String sessionId, Path cwd, Duration timeout)
      throws AcpRemoteException, AcpTransportClosedException, TimeoutException, InterruptedException {
    ObjectNode params = sessionParams(cwd).put("sessionId", sessionId);
    connection.request("session/load", params, timeout);
  }

  /**
   * Reattaches to a stored session without a replay of its history (ACP's stabilised {@code
   * session/resume}); only to be called when the agent advertised {@code sessionCapabilities.resume}.
   */
  public void resumeSession(String sessionId, Path cwd, Duration timeout)
      throws AcpRemoteException, AcpTransportClosedException, TimeoutException, InterruptedException {
    ObjectNode params = sessionParams(cwd).put("sessionId", sessionId);
    connection.request("session/resume", params, timeout);
  }

  /** Returns the new session's id; blank if the agent sent none. */
  public String newSession(Path cwd, Duration timeout)
      throws AcpRemoteException, AcpTransportClosedException, TimeoutException, InterruptedException {
    return connection.request("session/new", sessionParams(cwd), timeout).path("sessionId").asText("");
  }

  private ObjectNode sessionParams(Path cwd) {
    ObjectNode params = json.createObjectNode().put("cwd", cwd.toAbsolutePath().normalize().toString());
    params.putArray("mcpServers");
    return params;
  }
}
