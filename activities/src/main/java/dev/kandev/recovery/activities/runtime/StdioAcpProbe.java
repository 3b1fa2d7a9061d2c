package dev.kandev.recovery.activities.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.workflows.runtime.ProbeInfo;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A minimal ACP client for the probe only: one {@code initialize} over the child's stdio
 * (JSON-RPC 2.0, one object per line), then the child is stopped. It accepts protocol version 1,
 * the version this project speaks.
 */
public final class StdioAcpProbe implements AcpProbe {
  static final int PROTOCOL_VERSION = 1;
  private static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,"
          + "\"clientCapabilities\":{\"fs\":{\"readTextFile\":false,\"writeTextFile\":false},\"terminal\":false},"
          + "\"clientInfo\":{\"name\":\"kandev-recovery\",\"version\":\"0.1.0\"}}}\n";

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
    OutputTail stderr = new OutputTail();
    stderr.drain(process.getErrorStream(), "acp-probe-stderr-" + process.pid());
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try {
        answer.complete(readAnswer(process));
      } catch (RuntimeException e) {
        answer.completeExceptionally(e);
      }
    }, "acp-probe-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
    try {
      try (OutputStream stdin = process.getOutputStream()) {
        stdin.write(INITIALIZE.getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        return check(answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
      }
    } catch (TimeoutException e) {
      throw new ProbeFailedException("no initialize answer within " + timeout.toSeconds() + "s" + tail(stderr));
    } catch (ExecutionException e) {
      throw new ProbeFailedException(e.getCause().getMessage() + exit(process) + tail(stderr));
    } catch (IOException e) {
      throw new ProbeFailedException("agent closed its stdin before initialize" + exit(process) + tail(stderr));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ProbeFailedException("interrupted");
    } finally {
      ProcessTrees.kill(process);
    }
  }

  /** The response with id 1; notifications and non-JSON lines before it are skipped. */
  private JsonNode readAnswer(Process process) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        JsonNode message;
        try {
          message = json.readTree(line);
        } catch (IOException notJson) {
          continue;
        }
        if (message != null && message.path("id").asInt(-1) == 1 && !message.has("method")) {
          return message;
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("reading agent stdout: " + e.getMessage(), e);
    }
    throw new IllegalStateException("agent closed stdout before answering initialize");
  }

  private static ProbeInfo check(JsonNode response) throws ProbeFailedException {
    if (response.has("error")) {
      JsonNode error = response.get("error");
      throw new ProbeFailedException("initialize returned error " + error.path("code").asInt() + ": "
          + bounded(error.path("message").asText()));
    }
    JsonNode result = response.path("result");
    if (!result.path("protocolVersion").isInt()) {
      throw new ProbeFailedException("initialize answer has no integer protocolVersion");
    }
    int version = result.get("protocolVersion").asInt();
    if (version != PROTOCOL_VERSION) {
      throw new ProbeFailedException("unsupported protocol version " + version);
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
      return process.waitFor(1, TimeUnit.SECONDS) ? " (exit code " + process.exitValue() + ")" : "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private static String tail(OutputTail stderr) {
    List<String> lines = stderr.lines();
    return lines.isEmpty() ? "" : "; stderr: " + String.join(" / ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
  }

  private static String bounded(String text) {
    return text.length() <= 200 ? text : text.substring(0, 200) + "…";
  }
}
