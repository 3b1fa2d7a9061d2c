package dev.kandev.recovery.activities.acp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.activities.json.Json;
import java.io.IOException;

/**
 * Client notifications (JSON-RPC messages without an id, such as {@code session/cancel}) on an
 * {@link AcpConnection}: the worker sends none, the tests' prompt turns cancel with one.
 */
public final class AcpNotifications {
  private AcpNotifications() {}

  public static void send(AcpConnection connection, String method, JsonNode params) throws AcpTransportClosedException {
    ObjectNode message = Json.mapper().createObjectNode().put("jsonrpc", "2.0").put("method", method);
    message.set("params", params);
    try {
      connection.write(message);
    } catch (IOException e) {
      throw new AcpTransportClosedException("could not send " + method + ": " + e.getMessage(), e);
    }
  }
}
