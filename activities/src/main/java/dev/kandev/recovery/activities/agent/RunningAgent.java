package dev.kandev.recovery.activities.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.acp.AcpConnection;
import dev.kandev.recovery.activities.acp.AcpProtocol;
import dev.kandev.recovery.activities.acp.ClientRequests;
import dev.kandev.recovery.activities.acp.TranscriptCollector;
import dev.kandev.recovery.activities.redaction.Redaction;
import java.time.Duration;
import java.util.List;

/**
 * One agent child of this worker from its spawn on: the process, its ACP connection, the collector
 * of its {@code session/update} messages, and the provider session it serves.
 */
final class RunningAgent {
  final String sessionId;
  final String executionId;
  final AgentProcess process;
  final TranscriptCollector collector = new TranscriptCollector();
  final AcpConnection connection;
  final AcpProtocol protocol;
  private final List<String> secrets;
  private volatile String providerSessionId;
  private volatile boolean stopping;

  RunningAgent(
      String sessionId, String executionId, AgentProcess process, List<String> secrets, ClientRequests requests,
      ObjectMapper json) {
    this.sessionId = sessionId;
    this.executionId = executionId;
    this.process = process;
    this.secrets = secrets;
    this.connection = new AcpConnection(
        sessionId, process.process().getInputStream(), process.process().getOutputStream(), json,
        this::onNotification, requests);
    this.protocol = new AcpProtocol(connection, json);
  }

  /** Updates of other sessions than the one served (or, before one is, of any) are not collected. */
  private void onNotification(String method, JsonNode params) {
    if (!method.equals("session/update")) {
      return;
    }
    String target = params.path("sessionId").asText();
    String served = providerSessionId;
    if (served == null || served.equals(target)) {
      collector.onUpdate(params.path("update"));
    }
  }

  String providerSessionId() {
    return providerSessionId;
  }

  void serve(String providerSessionId) {
    this.providerSessionId = providerSessionId;
  }

  boolean isAlive() {
    return process.process().isAlive();
  }

  /** Whether this worker is stopping it (an exit then is no surprise). */
  boolean stopping() {
    return stopping;
  }

  /** Its stderr tail for diagnostics: redacted and bounded ({@link DiagnosticTail}). */
  String stderrTail() {
    return DiagnosticTail.of(process.stderrTail(), secrets);
  }

  /** Other text it wrote (an ACP error's message) as diagnostics show it: the same redaction, not bounded. */
  String redacted(String text) {
    return Redaction.of(secrets).apply(text);
  }

  /** Stops it: stdin closed, then SIGTERM, then SIGKILL, {@code grace} apart. Returns the exit code. */
  int terminate(Duration grace) {
    stopping = true;
    connection.close();
    return process.terminate(grace);
  }

  /** Kills it at once (a failed launch has nothing to finish). */
  void kill() {
    connection.close();
    process.kill();
  }
}
