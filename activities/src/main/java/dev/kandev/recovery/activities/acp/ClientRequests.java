package dev.kandev.recovery.activities.acp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the agent → client requests of one agent so it never waits forever: permissions by
 * policy, text file reads and writes inside the session's workspace only, anything else with
 * -32601 method not found.
 */
public final class ClientRequests implements AcpConnection.RequestHandler {
  private static final Logger log = LoggerFactory.getLogger(ClientRequests.class);

  private final String sessionId;
  private final Path workspace;
  private final PermissionPolicy policy;
  private final ObjectMapper json;

  public ClientRequests(String sessionId, Path workspace, PermissionPolicy policy, ObjectMapper json) {
    this.sessionId = sessionId;
    this.workspace = workspace.toAbsolutePath().normalize();
    this.policy = policy;
    this.json = json;
  }

  @Override
  public JsonNode onRequest(String method, JsonNode params) throws AcpRemoteException {
    return switch (method) {
      case "session/request_permission" -> permission(params);
      case "fs/read_text_file" -> read(params);
      case "fs/write_text_file" -> write(params);
      default -> throw error(method, AcpError.METHOD_NOT_FOUND, "Method not found: " + method);
    };
  }

  private JsonNode permission(JsonNode params) {
    ObjectNode outcome = json.createObjectNode();
    for (String kind : policy.preferredKinds()) {
      for (JsonNode option : params.path("options")) {
        if (kind.equals(option.path("kind").asText())) {
          log.info("session {}: permission '{}' answered {} by policy {}",
              sessionId, params.path("toolCall").path("title").asText(), option.path("optionId").asText(), policy);
          outcome.put("outcome", "selected").put("optionId", option.path("optionId").asText());
          return json.createObjectNode().set("outcome", outcome);
        }
      }
    }
    log.info("session {}: no {} option offered; permission answered cancelled", sessionId, policy);
    outcome.put("outcome", "cancelled");
    return json.createObjectNode().set("outcome", outcome);
  }

  private JsonNode read(JsonNode params) throws AcpRemoteException {
    Path file = insideWorkspace("fs/read_text_file", params);
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      int from = Math.max(0, params.path("line").asInt(1) - 1);
      int limit = params.path("limit").isNumber() ? params.path("limit").asInt() : Integer.MAX_VALUE;
      String content;
      if (from == 0 && limit == Integer.MAX_VALUE) {
        content = Files.readString(file, StandardCharsets.UTF_8);
      } else {
        int to = (int) Math.min(lines.size(), (long) from + limit);
        content = from >= lines.size() ? "" : String.join("\n", lines.subList(from, to));
      }
      return json.createObjectNode().put("content", content);
    } catch (NoSuchFileException e) {
      throw error("fs/read_text_file", AcpError.RESOURCE_NOT_FOUND, "Resource not found: " + file);
    } catch (IOException e) {
      throw error("fs/read_text_file", AcpError.INTERNAL_ERROR, "cannot read " + file + ": " + e.getMessage());
    }
  }

  private JsonNode write(JsonNode params) throws AcpRemoteException {
    Path file = insideWorkspace("fs/write_text_file", params);
    if (!params.path("content").isTextual()) {
      throw error("fs/write_text_file", AcpError.INVALID_PARAMS, "Invalid params: content must be a string");
    }
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, params.path("content").asText(), StandardCharsets.UTF_8);
      return json.createObjectNode();
    } catch (IOException e) {
      throw error("fs/write_text_file", AcpError.INTERNAL_ERROR, "cannot write " + file + ": " + e.getMessage());
    }
  }

  /**
   * The requested path, if it is absolute and it and its nearest existing ancestor resolve (through
   * symlinks) inside the workspace.
   */
  private Path insideWorkspace(String method, JsonNode params) throws AcpRemoteException {
    String raw = params.path("path").asText("");
    Path requested;
    try {
      requested = Path.of(raw);
    } catch (RuntimeException e) {
      throw error(method, AcpError.INVALID_PARAMS, "Invalid params: path is not a valid path");
    }
    if (raw.isEmpty() || !requested.isAbsolute()) {
      throw error(method, AcpError.INVALID_PARAMS, "Invalid params: path must be absolute");
    }
    Path normalized = requested.normalize();
    try {
      Path root = workspace.toRealPath();
      Path existing = normalized;
      while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
        existing = existing.getParent();
      }
      Path resolved = existing == null ? normalized : existing.toRealPath().resolve(existing.relativize(normalized));
      if (!resolved.normalize().startsWith(root)) {
        throw error(method, AcpError.INVALID_PARAMS, "Invalid params: " + raw + " is outside the session workspace");
      }
      return resolved.normalize();
    } catch (IOException e) {
      throw error(method, AcpError.INTERNAL_ERROR, "cannot resolve " + raw + ": " + e.getMessage());
    }
  }

  private static AcpRemoteException error(String method, int code, String message) {
    return new AcpRemoteException(method, new AcpError(code, message, null));
  }
}
