package dev.kandev.recovery.activities.acp;

import com.fasterxml.jackson.databind.JsonNode;

/** A JSON-RPC error object as an agent (or this client) sends it. */
public record AcpError(int code, String message, JsonNode data) {
  public static final int PARSE_ERROR = -32700;
  public static final int INVALID_REQUEST = -32600;
  public static final int METHOD_NOT_FOUND = -32601;
  public static final int INVALID_PARAMS = -32602;
  public static final int INTERNAL_ERROR = -32603;
  public static final int AUTH_REQUIRED = -32000;
  public static final int RESOURCE_NOT_FOUND = -32002;

  static AcpError from(JsonNode error) {
    JsonNode data = error.get("data");
    return new AcpError(error.path("code").asInt(INTERNAL_ERROR), error.path("message").asText(""), data);
  }

  /** {@code <code> <message>}, the form failure messages carry. */
  public String describe() {
    return code + " " + message + (data == null || data.isNull() ? "" : " " + truncate(data.toString(), 500));
  }

  private static String truncate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }
}
