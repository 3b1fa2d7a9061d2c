package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.config.BuildInfo;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.ListeningSockets;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.harness.Scrape;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How {@code dev} finds, starts and refuses a Temporal server, as a user meets it. */
public class DevCommandIT {
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void devPrintsTheWebUiOfTheRealServerItStartsAndStopsItOnExitCleanlyForTheNextDev() throws Exception {
    int httpPort = RealTemporalServer.freePort();
    // dev polls unversioned even where the environment turns versioning on for workers (docs/upgrades.md).
    KandevProcess dev = cluster.dev("dev-a", Map.of("KANDEV_HTTP_PORT", Integer.toString(httpPort),
        "KANDEV_WORKER_VERSIONING", "true"));

    assertThat(dev.output()).contains("Temporal     127.0.0.1:" + cluster.temporalPort + " (Temporal dev server, pid")
        .contains("Web UI       http://127.0.0.1:" + cluster.uiPort)
        .contains("Version      kandev-recovery " + BuildInfo.version() + "; versioning off: unversioned worker");
    HttpResponse<String> page = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.uiPort + "/")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(Files.exists(cluster.stateDir().resolve("temporal.db"))).isTrue();
    servesTheFullMeterSetOfWorker(httpPort);

    assertThat(dev.terminate(Duration.ofMinutes(1))).as("a JVM ended by SIGTERM").isEqualTo(143);
    assertThat(dev.output()).contains("Stopping...");
    assertThat(serversOn(cluster.stateDir())).as("the dev server stopped with dev").isZero();
    assertThat(cluster.stateDir().resolve("dev.pid")).as("a clean stop leaves no predecessor").doesNotExist();

    KandevProcess next = cluster.dev("dev-b");
    assertThat(next.output()).as("after a clean stop there is nothing to take over")
        .doesNotContain("Predecessor", "is gone");
  }

  @Test
  void aSecondDevOnTheSameStateFolderIsRefusedInOneLine() {
    cluster.dev("dev-a");

    KandevProcess.Result second = KandevProcess.run(cluster.environment("dev-b"), cluster.logDir(), Duration.ofMinutes(1),
        "dev", "--temporal-port", Integer.toString(RealTemporalServer.freePort()));

    assertThat(second.exitCode()).isEqualTo(1);
    assertThat(second.output().strip()).startsWith("dev: another kandev-recovery (pid")
        .contains("worker dev-a) runs dev with the state folder " + cluster.stateDir());
  }

  @Test
  void aTakenPortIsReportedInOneLine() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      KandevProcess.Result result = KandevProcess.run(cluster.environment("dev-a"), cluster.logDir(), Duration.ofMinutes(1),
          "dev", "--temporal-port", Integer.toString(taken.getLocalPort()));

      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.output().strip()).isEqualTo("dev: port " + taken.getLocalPort() + " for the Temporal frontend (gRPC)"
          + " is taken by another process: stop it, choose another port (dev --temporal-port N), or use a server that"
          + " already runs there (dev --temporal-address 127.0.0.1:" + taken.getLocalPort() + ")");
    }
  }

  @Test
  void withoutATemporalCliDevSaysWhatIsLostAndRunsOnTheInMemoryServer() throws Exception {
    // A copy of the jar outside the checkout and a PATH without temporal: no CLI anywhere.
    Path app = cluster.dir().resolve("app");
    Files.createDirectories(app.resolve("lib"));
    Files.copy(KandevProcess.jar(), app.resolve("kandev-recovery.jar"));
    try (Stream<Path> libs = Files.list(KandevProcess.jar().resolveSibling("lib"))) {
      for (Path lib : libs.toList()) {
        Files.copy(lib, app.resolve("lib").resolve(lib.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Map<String, String> env = new HashMap<>(cluster.environment("dev-a"));
    env.put("PATH", "/usr/bin:/bin");
    env.put("KANDEV_TEMPORAL_CLI", ""); // blank counts as unset, also when the test's own environment names one
    KandevProcess dev = KandevProcess.start("dev-a", env, cluster.logDir(), app.resolve("kandev-recovery.jar"),
        "dev", "--temporal-port", Integer.toString(cluster.temporalPort));
    try {
      dev.awaitOutput("Ready.", Duration.ofMinutes(2));
      assertThat(dev.output()).contains("no Temporal CLI found: using the SDK's in-memory test server instead, which is not"
          + " durable (histories are lost when dev stops) and has no Web UI", "run scripts/setup")
          .contains("Temporal     127.0.0.1:" + cluster.temporalPort + " (in-memory test server")
          .doesNotContain("Web UI  ");
      assertThat(ListeningSockets.ofTree(dev.pid())).as("the in-memory server listens on loopback only")
          .anyMatch(socket -> socket.port() == cluster.temporalPort).allMatch(ListeningSockets.Socket::loopback);
    } finally {
      dev.terminate(Duration.ofMinutes(1));
    }
  }

  @Test
  void anExistingServerIsUsedAsIsWithTemporalAddress() throws Exception {
    try (var server = RealTemporalServer.start(cluster.dir().resolve("existing"))) {
      KandevProcess dev = cluster.started("dev-a", KandevProcess.start("dev-a", withAddress(server.address()),
          cluster.logDir(), "dev"));

      assertThat(dev.output()).contains("Temporal     " + server.address() + " (an existing server");
      assertThat(serversOn(cluster.stateDir())).as("dev started no server of its own").isZero();
    }
  }

  /** The same meters as {@code worker} (MetricsIT): the JVM's, the process', the pool's, the SDK's and ours, a resume's too. */
  private void servesTheFullMeterSetOfWorker(int httpPort) throws Exception {
    cluster.newSession("s-1", SessionState.CREATED);
    cluster.start("s-1", ResumeMode.START_FRESH).await(Duration.ofMinutes(2));
    List<String> meters = List.of("jvm_memory_used_bytes", "jvm_gc_pause_seconds_count", "jvm_threads_live_threads",
        "jvm_classes_loaded_classes", "process_cpu_usage", "process_files_open_files", "process_uptime_seconds",
        "system_cpu_count", "hikaricp_connections_active", "hikaricp_connections_pending",
        "hikaricp_connections_timeout_total", "temporal_workflow_completed_total", "temporal_request_total",
        "temporal_activity_schedule_to_start_latency_seconds_max", "kandev_resume_duration_seconds_count",
        "kandev_agent_launches_total", "kandev_agents_running", "kandev_sessions_starting",
        "kandev_sessions_starting_oldest_seconds", "kandev_workers_missing_beats", "kandev_worker_beats_total");
    // The SDK's meters reach the registry at its next report (every 2 s), the run's completion after the
    // resume's own count: wait for them all (a timeout names the meters still missing).
    Await.until(() -> missing(scrape(httpPort), meters), List::isEmpty, Duration.ofSeconds(30),
        "the resume and every meter in /metrics");
  }

  private static List<String> missing(Scrape scrape, List<String> meters) {
    List<String> missing = meters.stream().filter(meter -> !scrape.names().contains(meter)).toList();
    return scrape.value("kandev_resumes_total", "outcome=\"STARTED_FRESH\"") == 1 ? missing
        : Stream.concat(Stream.of("kandev_resumes_total{outcome=STARTED_FRESH} = 1"), missing.stream()).toList();
  }

  private static Scrape scrape(int httpPort) {
    try {
      return Scrape.parse(HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private Map<String, String> withAddress(String address) {
    Map<String, String> env = new HashMap<>(cluster.environment("dev-a"));
    env.put("TEMPORAL_ADDRESS", address);
    return env;
  }

  private static long serversOn(Path stateDir) {
    String file = stateDir.resolve("temporal.db").toString();
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().arguments().map(args -> String.join(" ", args).contains(file)).orElse(false))
        .count();
  }
}
