package dev.kandev.recovery.activities.runtime;

import dev.kandev.recovery.activities.acp.AcpConnection;
import dev.kandev.recovery.activities.acp.AcpError;
import dev.kandev.recovery.activities.acp.AcpHandshake;
import dev.kandev.recovery.activities.acp.AcpRemoteException;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.LocalNpmRegistry;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import dev.kandev.recovery.activities.testing.TestAgentPackage;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.activities.testing.bench.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Launch to {@code initialize} answered, for a built-in npm agent: {@code npx --yes --prefer-offline
 * <package>} (what every launch runs today) against running the bin of the tree npx installed
 * (its {@code node_modules/.bin} link) directly. The real npm, a real package ({@code
 * kandev-test-agent}, packed) from a registry on loopback, one npm cache; the two launches
 * alternate, so noise falls on both alike. Stopping the process tree is untimed.
 */
@Tag("benchmark")
class NpxLaunchBenchmark {
  private static final int WARM_UP = 3;
  private static final int ROUNDS = 20;
  private static final Duration INITIALIZE_WITHIN = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void npxAgainstTheInstalledBin() throws Exception {
    try (LocalNpmRegistry registry =
        LocalNpmRegistry.serve(TestAgentPackage.NAME, TestAgentPackage.VERSION, TestAgentPackage.pack(dir))) {
      NpmSandbox sandbox = NpmSandbox.in(dir, registry.url());
      List<String> npx = sandbox.settings().launchCommand(TestAgentPackage.NAME, List.of());
      long firstInstall = launchToInitialize(npx, sandbox); // the first npx fetches and installs the tree
      Path bin = sandbox.npxTree(TestAgentPackage.NAME).resolve("node_modules/.bin/" + TestAgentPackage.NAME);
      if (!Files.isExecutable(bin)) {
        throw new IllegalStateException("npx left no executable bin at " + bin);
      }
      List<String> direct = List.of(bin.toString());
      for (int i = 0; i < WARM_UP; i++) {
        launchToInitialize(npx, sandbox);
        launchToInitialize(direct, sandbox);
      }
      int requestsBefore = registry.requests().size();
      Latencies viaNpx = new Latencies();
      Latencies viaBin = new Latencies();
      for (int i = 0; i < ROUNDS; i++) {
        boolean npxFirst = i % 2 == 0;
        (npxFirst ? viaNpx : viaBin).add(launchToInitialize(npxFirst ? npx : direct, sandbox));
        (npxFirst ? viaBin : viaNpx).add(launchToInitialize(npxFirst ? direct : npx, sandbox));
      }
      int registryRequests = registry.requests().size() - requestsBefore;

      new Table("Built-in npm agent: launch to initialize answered (process start to the answer)", "-")
          .row("npx --yes --prefer-offline " + TestAgentPackage.NAME, viaNpx.count(), Double.NaN, viaNpx)
          .row("the installed tree's bin, directly", viaBin.count(), Double.NaN, viaBin)
          .note(String.format(Locale.ROOT, "npx / direct: median %.2fx, p95 %.2fx; saved per launch (median): %.0f ms",
              viaNpx.medianMillis() / viaBin.medianMillis(), viaNpx.p95Millis() / viaBin.p95Millis(),
              viaNpx.medianMillis() - viaBin.medianMillis()))
          .note(String.format(Locale.ROOT, "first npx (fetch and install from the registry): %.0f ms; registry requests"
              + " during the %d timed npx launches: %d", firstInstall / 1e6, ROUNDS, registryRequests))
          .note("npm " + npmVersion(sandbox) + ", node " + nodeVersion())
          .print(Machine.describe());
    }
  }

  /** Starts {@code argv}, makes the ACP initialize handshake, returns the nanos to its answer; then kills the tree. */
  private static long launchToInitialize(List<String> argv, NpmSandbox sandbox) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD);
    builder.environment().clear();
    builder.environment().putAll(sandbox.environment());
    long begin = System.nanoTime();
    Process process = builder.start();
    try (AcpConnection connection = new AcpConnection("npx-bench-" + process.pid(), process.getInputStream(),
        process.getOutputStream(), Json.mapper(), (method, params) -> {},
        (method, params) -> {
          throw new AcpRemoteException(method, new AcpError(AcpError.METHOD_NOT_FOUND, "Method not found", null));
        })) {
      AcpHandshake.AgentInfo info = AcpHandshake.initialize(connection, process, false, INITIALIZE_WITHIN, Json.mapper());
      long nanos = System.nanoTime() - begin;
      if (!TestAgentPackage.NAME.equals(info.name())) {
        throw new IllegalStateException(argv + " started " + info.name() + ", not " + TestAgentPackage.NAME);
      }
      return nanos;
    } finally {
      ProcessTrees.kill(process);
    }
  }

  private static String npmVersion(NpmSandbox sandbox) {
    return output(List.of("npm", "--version"), sandbox);
  }

  private static String nodeVersion() {
    return output(List.of("node", "--version"), null);
  }

  private static String output(List<String> argv, NpmSandbox sandbox) {
    try {
      ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
      if (sandbox != null) {
        builder.environment().clear();
        builder.environment().putAll(sandbox.environment());
      }
      Process process = builder.start();
      String out = new String(process.getInputStream().readAllBytes()).trim();
      process.waitFor();
      return out;
    } catch (Exception e) {
      return "unknown";
    }
  }
}
