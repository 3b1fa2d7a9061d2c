package dev.kandev.recovery.activities.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.activities.acp.AcpConnection;
import dev.kandev.recovery.activities.acp.AcpError;
import dev.kandev.recovery.activities.acp.AcpRemoteException;
import dev.kandev.recovery.activities.acp.AcpTransportClosedException;
import dev.kandev.recovery.activities.process.OutputTail;
import dev.kandev.recovery.workflows.runtime.ProbeInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The probe over the project's ACP JSON-RPC transport ({@link AcpConnection}): start the runtime's
 * launch command, one {@code initialize} declaring no client capabilities (the probe serves no fs
 * or terminal requests), require protocol version 1, then stop the whole process tree.
 */
public final class StdioAcpProbe implements AcpProbe {
  static final int PROTOCOL_VERSION = 1;

  private final ObjectMapper json;

  public StdioAcpProbe(ObjectMapper json) {
    this.json = json;
  }

  @Override
  public ProbeInfo probe(List<String> argv, Map<String, String> environment, Duration timeout)
      throws ProbeFailedException {
    ProcessBuilder builder = new ProcessBuilder(argv);
    builder.environment().clear();
    builder.environment().putAll(environment);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new ProbeFailedException("cannot start " + argv.get(0) + ": " + e.getMessage());
    }
    OutputTail stderr = OutputTail.drain(process.getErrorStream(), "acp-probe-stderr-" + process.pid());
    try (AcpConnection connection = new AcpConnection(
        "runtime-probe-" + process.pid(), process.getInputStream(), process.getOutputStream(), json,
        (method, params) -> {},
        (method, params) -> {
          throw new AcpRemoteException(method, new AcpError(AcpError.METHOD_NOT_FOUND, "Method not found", null));
        })) {
      return check(connection.request("initialize", initializeParams(), timeout));
    } catch (AcpTransportClosedException e) {
      throw new ProbeFailedException(
          "the agent closed its stdout before answering initialize" + exit(process) + tail(stderr, true));
    } catch (TimeoutException e) {
      throw new ProbeFailedException("no initialize answer within " + timeout.toSeconds() + "s" + tail(stderr, false));
    } catch (AcpRemoteException e) {
      throw new ProbeFailedException("initialize returned error " + e.error().describe());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ProbeFailedException("interrupted");
    } finally {
      ProcessTrees.kill(process);
    }
  }

  private ObjectNode initializeParams() {
    ObjectNode params = json.createObjectNode().put("protocolVersion", PROTOCOL_VERSION);
    ObjectNode capabilities = params.putObject("clientCapabilities");
    capabilities.putObject("fs").put("readTextFile", false).put("writeTextFile", false);
    capabilities.put("terminal", false);
    params.putObject("clientInfo").put("name", "kandev-recovery-runtime-probe").put("version", "0.1.0");
    return params;
  }

  private static ProbeInfo check(JsonNode result) throws ProbeFailedException {
    if (!result.path("protocolVersion").isInt()) {
      throw new ProbeFailedException("initialize answer has no integer protocolVersion");
    }
    int version = result.get("protocolVersion").asInt();
    if (version != PROTOCOL_VERSION) {
      throw new ProbeFailedException("unsupported protocol version " + version + "; this client speaks " + PROTOCOL_VERSION);
    }
    JsonNode agentInfo = result.path("agentInfo");
    return new ProbeInfo(
        bounded(agentInfo.path("name").asText("unknown")),
        bounded(agentInfo.path("version").asText("unknown")),
        version,
        result.path("agentCapabilities").path("loadSession").asBoolean(false));
  }

  private static String exit(Process process) {
    try {
      return process.waitFor(2, TimeUnit.SECONDS) ? " (exit code " + process.exitValue() + ")" : "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** The last stderr lines; after an exit, waits briefly for the reader to reach EOF. */
  private static String tail(OutputTail stderr, boolean exited) {
    if (exited) {
      stderr.awaitEnd(Duration.ofSeconds(1));
    }
    List<String> lines = stderr.lines();
    return lines.isEmpty() ? "" : "; stderr: " + String.join(" / ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
  }

  private static String bounded(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "…";
  }
}
