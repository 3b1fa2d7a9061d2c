package dev.kandev.recovery.activities.acp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The ACP {@code initialize} exchange, made the same way by the agent host (before it loads or
 * creates a session) and by the runtime probe: the client's capabilities and info go out, the
 * agent must answer with protocol version 1 as an integer, and every way it can fail is named.
 */
public final class AcpHandshake {
  public static final int PROTOCOL_VERSION = 1;
  static final String CLIENT_NAME = "kandev-recovery";
  static final String CLIENT_VERSION = "0.1.0";
  /** How long a closed transport is given to turn into an exit code. */
  public static final Duration EXIT_OBSERVATION = Duration.ofSeconds(2);
  private static final int MAX_INFO_CHARS = 200;

  /**
   * What {@code initialize} told about the agent; name and version are cut to 200 chars.
   *
   * @param loadSession {@code agentCapabilities.loadSession} is true: {@code session/load} may be called
   * @param resumeSession {@code agentCapabilities.sessionCapabilities.resume} is present (an object, as
   *     ACP advertises it): {@code session/resume} may be called
   */
  public record AgentInfo(String name, String version, int protocolVersion, boolean loadSession, boolean resumeSession) {}

  /** How the handshake failed; the message says it in words. */
  public enum FailureKind {
    /** The process exited before it answered. */
    EXITED,
    /** The agent closed its stdout (the process lived on). */
    CLOSED,
    TIMED_OUT,
    /** The agent answered with a JSON-RPC error. */
    ERROR_ANSWER,
    /** No integer {@code protocolVersion}, or another one than {@link #PROTOCOL_VERSION}. */
    UNSUPPORTED_VERSION
  }

  /** The agent did not complete the handshake. */
  public static final class Failure extends Exception {
    private final FailureKind kind;
    private final Integer exitCode;
    private final AcpError acpError;

    Failure(FailureKind kind, String message, Integer exitCode, AcpError acpError, Throwable cause) {
      super(message, cause);
      this.kind = kind;
      this.exitCode = exitCode;
      this.acpError = acpError;
    }

    public FailureKind kind() {
      return kind;
    }

    /** The agent's JSON-RPC error, for {@link FailureKind#ERROR_ANSWER}; else null. */
    public AcpError acpError() {
      return acpError;
    }

    /** The message with the exit code and the agent's error, when known. */
    public String describe() {
      return getMessage() + (exitCode == null ? "" : " (exit code " + exitCode + ")")
          + (acpError == null ? "" : ": " + acpError.describe());
    }
  }

  private AcpHandshake() {}

  /**
   * Sends {@code initialize} over {@code connection} to the agent {@code process} and checks the
   * answer.
   *
   * @param servesFiles whether this client answers the agent's {@code fs/*} requests
   */
  public static AgentInfo initialize(
      AcpConnection connection, Process process, boolean servesFiles, Duration timeout, ObjectMapper json)
      throws Failure, InterruptedException {
    JsonNode result;
    try {
      result = connection.request("initialize", params(servesFiles, json), timeout);
    } catch (AcpTransportClosedException e) {
      Integer exitCode = exitCodeWithin(process, EXIT_OBSERVATION);
      if (exitCode != null) {
        throw new Failure(FailureKind.EXITED, "the agent process exited before answering initialize", exitCode, null, e);
      }
      throw new Failure(FailureKind.CLOSED, "the agent closed its stdout before answering initialize", null, null, e);
    } catch (TimeoutException e) {
      throw new Failure(FailureKind.TIMED_OUT, "initialize was not answered within " + timeout, null, null, e);
    } catch (AcpRemoteException e) {
      throw new Failure(FailureKind.ERROR_ANSWER, "the agent answered initialize with an error", null, e.error(), e);
    }
    if (!result.path("protocolVersion").isInt()) {
      throw new Failure(FailureKind.UNSUPPORTED_VERSION,
          "the agent answered initialize without an integer protocolVersion", null, null, null);
    }
    int version = result.get("protocolVersion").asInt();
    if (version != PROTOCOL_VERSION) {
      throw new Failure(FailureKind.UNSUPPORTED_VERSION, "the agent answered initialize with ACP protocol version "
          + version + "; this client speaks " + PROTOCOL_VERSION, null, null, null);
    }
    JsonNode agentInfo = result.path("agentInfo");
    JsonNode capabilities = result.path("agentCapabilities");
    return new AgentInfo(
        bounded(agentInfo.path("name").asText("unknown")),
        bounded(agentInfo.path("version").asText("unknown")),
        version,
        capabilities.path("loadSession").asBoolean(false),
        capabilities.path("sessionCapabilities").path("resume").isObject());
  }

  private static ObjectNode params(boolean servesFiles, ObjectMapper json) {
    ObjectNode params = json.createObjectNode().put("protocolVersion", PROTOCOL_VERSION);
    ObjectNode capabilities = params.putObject("clientCapabilities");
    capabilities.putObject("fs").put("readTextFile", servesFiles).put("writeTextFile", servesFiles);
    capabilities.put("terminal", false);
    params.putObject("clientInfo").put("name", CLIENT_NAME).put("version", CLIENT_VERSION);
    return params;
  }

  private static Integer exitCodeWithin(Process process, Duration wait) throws InterruptedException {
    return process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : null;
  }

  private static String bounded(String text) {
    return text.length() <= MAX_INFO_CHARS ? text : text.substring(0, MAX_INFO_CHARS) + "…";
  }
}
