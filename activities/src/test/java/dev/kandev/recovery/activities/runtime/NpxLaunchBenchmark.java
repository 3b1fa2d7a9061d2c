package dev.kandev.recovery.activities.runtime;

import dev.kandev.recovery.activities.acp.AcpConnection;
import dev.kandev.recovery.activities.acp.AcpError;
import dev.kandev.recovery.activities.acp.AcpHandshake;
import dev.kandev.recovery.activities.acp.AcpRemoteException;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.process.ProcessTrees;
import dev.kandev.recovery.activities.testing.LocalNpmRegistry;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import dev.kandev.recovery.activities.testing.TestAgentPackage;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.activities.testing.bench.Table;
import dev.kandev.recovery.workflows.runtime.AgentRuntime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Launch to {@code initialize} answered, for a built-in npm agent: {@code npx --yes --prefer-offline
 * <package>} (every launch before {@link NpmLaunch}, and still its fallback) against the launch path
 * now: {@link NpmLaunch#plan} checks the installed tree (timed with the launch) and starts its bin
 * directly. The real npm, a real package ({@code kandev-test-agent}, packed) from a registry on
 * loopback, one npm cache; the two launches alternate, so noise falls on both alike. Stopping the
 * process tree is untimed.
 */
@Tag("benchmark")
class NpxLaunchBenchmark {
  private static final int WARM_UP = 3;
  private static final int ROUNDS = 20;
  private static final Duration INITIALIZE_WITHIN = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void npxAgainstTheInstalledBin() throws Exception {
    try (LocalNpmRegistry registry = LocalNpmRegistry.serveTestAgent(dir)) {
      NpmSandbox sandbox = NpmSandbox.in(dir, registry.url());
      List<String> npx = sandbox.settings().launchCommand(TestAgentPackage.NAME, List.of());
      long firstInstall = launchToInitialize(npx, sandbox); // the first npx fetches and installs the tree
      NpmLaunch launch = new NpmLaunch(sandbox.settings(), new CommandRunner());
      AgentRuntime agent = new AgentRuntime(TestAgentPackage.NAME, TestAgentPackage.NAME, TestAgentPackage.NAME, List.of());
      Latencies planning = new Latencies();
      if (!launch.plan(agent).direct()) {
        throw new IllegalStateException("npx left no healthy tree: " + launch.plan(agent).fallbackReason());
      }
      for (int i = 0; i < WARM_UP; i++) {
        launchToInitialize(npx, sandbox);
        planAndLaunch(launch, agent, sandbox, new Latencies());
      }
      int requestsBefore = registry.requests().size();
      Latencies viaNpx = new Latencies();
      Latencies viaPlan = new Latencies();
      for (int i = 0; i < ROUNDS; i++) {
        if (i % 2 == 0) {
          viaNpx.add(launchToInitialize(npx, sandbox));
          viaPlan.add(planAndLaunch(launch, agent, sandbox, planning));
        } else {
          viaPlan.add(planAndLaunch(launch, agent, sandbox, planning));
          viaNpx.add(launchToInitialize(npx, sandbox));
        }
      }
      int registryRequests = registry.requests().size() - requestsBefore;

      new Table("Built-in npm agent: launch to initialize answered (process start to the answer)", "-")
          .row("npx --yes --prefer-offline " + TestAgentPackage.NAME, viaNpx.count(), Double.NaN, viaNpx)
          .row("installed bin via NpmLaunch (tree checked)", viaPlan.count(), Double.NaN, viaPlan)
          .note(String.format(Locale.ROOT, "npx / NpmLaunch: median %.2fx, p95 %.2fx; saved per launch (median): %.0f ms",
              viaNpx.medianMillis() / viaPlan.medianMillis(), viaNpx.p95Millis() / viaPlan.p95Millis(),
              viaNpx.medianMillis() - viaPlan.medianMillis()))
          .note(String.format(Locale.ROOT, "of which the tree check (NpmLaunch.plan): median %.2f ms, p95 %.2f ms",
              planning.medianMillis(), planning.p95Millis()))
          .note(String.format(Locale.ROOT, "first npx (fetch and install from the registry): %.0f ms; registry requests"
              + " during the %d timed rounds: %d", firstInstall / 1e6, ROUNDS, registryRequests))
          .note("npm " + npmVersion(sandbox) + ", node " + nodeVersion())
          .print(Machine.describe());
    }
  }

  /** Nanos from deciding how to launch (the plan, also added to {@code planning}) to the initialize answer. */
  private static long planAndLaunch(NpmLaunch launch, AgentRuntime agent, NpmSandbox sandbox, Latencies planning)
      throws Exception {
    long begin = System.nanoTime();
    NpmLaunch.Plan plan = launch.plan(agent);
    long planned = System.nanoTime() - begin;
    if (!plan.direct()) {
      throw new IllegalStateException("the healthy tree was not launched directly: " + plan.fallbackReason());
    }
    planning.add(planned);
    return planned + launchToInitialize(plan.argv(), sandbox);
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
