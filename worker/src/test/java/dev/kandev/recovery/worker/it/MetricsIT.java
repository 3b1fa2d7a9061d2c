package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.AlertRuleTestFile;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.Promtool;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.harness.Scrape;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The worker's HTTP endpoint (KANDEV_HTTP_PORT) scraped around real resumes, on a real Temporal server. */
public class MetricsIT {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();
  private DevTemporalServer temporal;
  private final int httpPort = RealTemporalServer.freePort();

  /** A Temporal server (under the cluster's folder: the cluster stops it after its processes) and the worker. */
  @BeforeEach
  void setUp() {
    temporal = DevTemporalServer.start(RealTemporalServer.cli(), cluster.dir().resolve("temporal"), cluster.temporalPort, cluster.uiPort);
    Map<String, String> env = new HashMap<>(cluster.environment("worker-metrics"));
    env.put("TEMPORAL_ADDRESS", cluster.temporalAddress());
    env.put("KANDEV_HTTP_PORT", Integer.toString(httpPort));
    // A launch bound to a host no worker serves fails within seconds (AGENT_HOST_UNAVAILABLE).
    env.put("KANDEV_HOST_WAIT_SECONDS", "2");
    cluster.started("worker-metrics", KandevProcess.start("worker-metrics", env, cluster.logDir(), "worker"));
  }

  @Test
  void metricsCountResumesByOutcomeAndFailureTypeLaunchesAndRunningAgentsBesideTheSdksOwn() throws Exception {
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    assertThat(get("/readyz").body()).isEqualTo("ready\n");
    String before = get("/metrics").body();
    assertThat(value(before, "kandev_agents_running")).isZero();
    assertThat(value(before, "kandev_launches_under_way")).isZero();
    assertThat(value(before, "kandev_restart_recoveries_total")).isZero();
    assertThat(before).as("the SDK's meters").contains("temporal_");

    cluster.newSession("s-1", SessionState.CREATED);
    cluster.start("s-1", ResumeMode.START_FRESH).await(Duration.ofMinutes(2));
    Await.until(() -> value(scrape(), "kandev_resumes_total", "outcome=\"STARTED_FRESH\"", "failure_type=\"none\"") == 1,
        Duration.ofSeconds(30), "the started-fresh resume in /metrics");
    String afterResume = scrape();
    assertThat(value(afterResume, "kandev_agent_launches_total", "result=\"created\"")).isEqualTo(1);
    assertThat(value(afterResume, "kandev_resume_duration_seconds_count", "outcome=\"STARTED_FRESH\"")).isEqualTo(1);
    assertThat(value(afterResume, "kandev_agents_running")).isEqualTo(1);
    assertThat(value(afterResume, "kandev_launches_under_way")).isZero();
    assertThat(afterResume).as("the SDK's meters of the host's launch queue, which ran the launch")
        .contains("task_queue=\"kandev-recovery@it-host/launch\"");

    RecoveryCluster.awaitFailure(cluster.start("s-missing", ResumeMode.RESUME), Duration.ofMinutes(2));
    Await.until(() -> value(scrape(), "kandev_resumes_total", "outcome=\"FAILED\"",
            "failure_type=\"SESSION_NOT_FOUND\"") == 1, Duration.ofSeconds(30), "the refused resume in /metrics");
    assertThat(value(scrape(), "kandev_resumes_total", "outcome=\"STARTED_FRESH\"")).isEqualTo(1);

    cluster.newSession("s-elsewhere", SessionState.CREATED);
    cluster.bindHost("s-elsewhere", "host-without-worker");
    RecoveryCluster.awaitFailure(cluster.start("s-elsewhere", ResumeMode.START_FRESH), Duration.ofMinutes(2));
    Await.until(() -> value(scrape(), "kandev_resumes_total", "outcome=\"FAILED\"",
        "failure_type=\"AGENT_HOST_UNAVAILABLE\"") == 1, Duration.ofSeconds(30), "the failed resume in /metrics");
    Scrape after = Scrape.parse(scrape());
    assertThat(after.names()).as("the JVM's, the process', the pool's, the SDK's and ours").contains(
        "jvm_memory_used_bytes", "jvm_gc_pause_seconds_count", "jvm_threads_live_threads", "jvm_classes_loaded_classes",
        "process_cpu_usage", "process_files_open_files", "process_uptime_seconds", "system_cpu_count",
        "hikaricp_connections_active", "hikaricp_connections_pending", "hikaricp_connections_timeout_total",
        "temporal_workflow_completed_total", "temporal_activity_schedule_to_start_latency_seconds_max",
        "kandev_sessions_starting", "kandev_sessions_starting_oldest_seconds", "kandev_workers_missing_beats",
        "kandev_worker_beats_total");
    assertThat(after.value("kandev_sessions_starting")).as("every resume ended").isZero();
    assertThat(after.value("kandev_worker_beats_total", "result=\"recorded\"")).isPositive();

    // The alert rules, evaluated by promtool on these scrapes as if scraped every minute: each failure
    // type pages (a counter's first sample is already 1), the failed launch also as waiting beyond the
    // host wait; nothing else fires.
    Promtool.Result rules = new AlertRuleTestFile(Scrape.parse(before), after, "worker-metrics")
        .expect(AlertRuleTestFile.BEFORE - 1, ".*", List.of())
        .expect(AlertRuleTestFile.BEFORE + 1, ".*", List.of(
            "alertname=\"KandevLaunchesWaitingBeyondHostWait\", severity=\"page\"",
            "alertname=\"KandevResumesFailing\", failure_type=\"AGENT_HOST_UNAVAILABLE\", severity=\"page\"",
            "alertname=\"KandevResumesFailing\", failure_type=\"SESSION_NOT_FOUND\", severity=\"page\""))
        .expect(AlertRuleTestFile.BEFORE + 11, ".*", List.of()) // ten minutes without another failure: resolved
        .run(cluster.dir().resolve("promtool"));
    assertThat(rules.exitCode()).as(rules.output()).isZero();
  }

  @Test
  void readyzNamesTheTemporalServerThatStoppedAnswering() throws Exception {
    assertThat(get("/readyz").statusCode()).isEqualTo(200);

    temporal.close();

    HttpResponse<String> readyz = get("/readyz");
    assertThat(readyz.statusCode()).isEqualTo(503);
    assertThat(readyz.body()).contains("Temporal at " + cluster.temporalAddress() + " unreachable").doesNotContain("PostgreSQL");
    assertThat(get("/healthz").statusCode()).as("the process still runs and polls").isEqualTo(200);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
        .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private String scrape() {
    try {
      return get("/metrics").body();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The sum of the samples of {@code metric} whose labels include all of {@code labels}. */
  private static double value(String scrape, String metric, String... labels) {
    return scrape.lines()
        .filter(l -> l.startsWith(metric + "{") || l.startsWith(metric + " "))
        .filter(l -> Stream.of(labels).allMatch(l::contains))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
