package dev.kandev.recovery.activities.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.acp.AcpConnection;
import dev.kandev.recovery.activities.acp.AcpError;
import dev.kandev.recovery.activities.acp.AcpHandshake;
import dev.kandev.recovery.activities.acp.AcpRemoteException;
import dev.kandev.recovery.activities.process.OutputTail;
import dev.kandev.recovery.activities.process.ProcessTrees;
import dev.kandev.recovery.activities.redaction.Redaction;
import dev.kandev.recovery.workflows.runtime.ProbeInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The probe over the project's ACP transport: start the runtime's launch command, make the agent
 * host's {@code initialize} handshake ({@link AcpHandshake}) declaring no fs capability (the probe
 * serves no requests), then stop the whole process tree.
 */
public final class StdioAcpProbe implements AcpProbe {
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
      AcpHandshake.AgentInfo info = AcpHandshake.initialize(connection, process, false, timeout, json);
      return new ProbeInfo(info.name(), info.version(), info.protocolVersion(), info.loadSession());
    } catch (AcpHandshake.Failure e) {
      // The agent's answer and its stderr end up in the failure (history) and the job: redacted.
      throw new ProbeFailedException(Redaction.ofEnvironment(environment).apply(e.describe() + tail(process, stderr)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ProbeFailedException("interrupted");
    } finally {
      ProcessTrees.kill(process);
    }
  }

  /** The last stderr lines; after an exit, waits briefly for the reader to reach the end. */
  private static String tail(Process process, OutputTail stderr) {
    if (!process.isAlive()) {
      stderr.awaitEnd(Duration.ofSeconds(1));
    }
    List<String> lines = stderr.lines();
    return lines.isEmpty() ? "" : "; stderr: " + String.join(" / ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
  }
}
