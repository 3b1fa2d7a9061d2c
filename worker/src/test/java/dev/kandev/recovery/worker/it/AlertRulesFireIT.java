package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.AlertRuleTestFile;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.Promtool;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.harness.Scrape;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The six alert rules MetricsIT only shows quiet, each made to fire by what it is about, on a real
 * worker's scrapes, and resolved: a workflow task that fails (a workflow type the worker does not
 * know), beats and store connections that fail (the store's tables locked away from a worker with a
 * pool of one connection), a session STARTING for an hour and the presence row a killed worker left
 * (rows as they would be; the worker reads them at each scrape), and a launch that waited in its
 * host's launch queue longer than 30 s (one launch held in ACP initialize, a cap of one). promtool
 * evaluates the rules on a quiet scrape, the scrape with all of it, and one after it all ended.
 */
public class AlertRulesFireIT {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  /** A bound on a hang, no performance threshold: each wait below ends as soon as its condition holds. */
  private static final Duration HANG = Duration.ofMinutes(5);
  private static final String INSTANCE = "worker-alerts";
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();
  private final int httpPort = RealTemporalServer.freePort();

  @Test
  void eachAlertFiresOnWhatItIsAboutAndResolves() throws Exception {
    DevTemporalServer.start(RealTemporalServer.cli(), cluster.dir().resolve("temporal"), cluster.temporalPort, cluster.uiPort);
    Map<String, String> env = new HashMap<>(cluster.environment(INSTANCE));
    env.put("TEMPORAL_ADDRESS", cluster.temporalAddress());
    env.put("KANDEV_HTTP_PORT", Integer.toString(httpPort));
    env.put("KANDEV_DB_POOL_SIZE", "1");
    env.put("KANDEV_MAX_CONCURRENT_LAUNCHES", "1");
    cluster.started(INSTANCE, KandevProcess.start(INSTANCE, env, cluster.logDir(), "worker"));
    // The pool of one connection may be busy at any scrape; a quiet one has nothing waiting for it.
    Scrape quiet = awaitScrape(AlertRulesFireIT::noStepWaitsForTheStore, "a scrape with no step waiting for the store");

    // A workflow task that fails: a workflow type no worker of the queue registers.
    WorkflowStub unknown = cluster.client().newUntypedWorkflowStub("NoSuchWorkflow",
        WorkflowOptions.newBuilder().setWorkflowId("no-such-workflow").setTaskQueue("kandev-recovery").build());
    unknown.start();
    awaitScrape(s -> s.value("temporal_workflow_task_execution_failed_total", "workflow_type=\"NoSuchWorkflow\"") > 0,
        "the failed workflow task in /metrics");
    unknown.terminate("the test saw its workflow task fail");

    // The store's tables locked: the beat and every other store read wait 5 s (the lock timeout) on the
    // pool's one connection and fail, and whoever waits for that connection 10 s times out.
    try (Connection locker = DriverManager.getConnection(TestDatabase.URL, TestDatabase.USER, "")) {
      locker.setAutoCommit(false);
      try (Statement lock = locker.createStatement()) {
        lock.execute("LOCK TABLE " + tables("worker_presence", "task_sessions", "session_events", "executors_running")
            + " IN ACCESS EXCLUSIVE MODE");
      }
      // A second scraper beside the test's own: its store gauges want the connection too.
      AtomicBoolean locked = new AtomicBoolean(true);
      ExecutorService scraper = Executors.newSingleThreadExecutor();
      scraper.submit(() -> {
        while (locked.get()) {
          scrapeText();
        }
      });
      try {
        awaitScrape(s -> s.value("kandev_worker_beats_total", "result=\"failed\"") > 0
            && s.value("hikaricp_connections_timeout_total") > 0, "a failed beat and a store connection request that timed out");
      } finally {
        locked.set(false);
        locker.rollback();
        scraper.shutdown();
      }
    }

    // A session STARTING for an hour, and the presence row of a worker killed two minutes ago.
    cluster.fixtures.task("t-stuck", "ws-1", "IN_PROGRESS");
    cluster.fixtures.exec("INSERT INTO task_sessions (id, task_id, agent_id, state, updated_at)"
        + " VALUES ('s-stuck', 't-stuck', 'test-agent', 'STARTING', now() - interval '1 hour')");
    cluster.fixtures.exec("INSERT INTO worker_presence (worker_instance, host, started_at, last_seen_at)"
        + " VALUES ('killed-worker', 'it-host', now() - interval '1 hour', now() - interval '2 minutes')");

    // A launch that waits in the host's launch queue beyond 30 s behind one held in ACP initialize.
    cluster.agentMode("hold-initialize");
    cluster.newSession("s-held", SessionState.CREATED);
    var held = cluster.start("s-held", ResumeMode.START_FRESH);
    cluster.awaitAgentStarting("s-held");
    cluster.newSession("s-queued", SessionState.CREATED);
    long queued = System.nanoTime();
    var waiting = cluster.start("s-queued", ResumeMode.START_FRESH);
    // The alert is about 30 s of waiting: nothing to wait on but the time itself.
    Await.until(() -> Duration.ofNanos(System.nanoTime() - queued).compareTo(Duration.ofSeconds(35)) > 0, HANG,
        "35 s of the second launch in the queue");
    cluster.agentMode("normal");
    held.await(HANG);
    waiting.await(HANG);
    Scrape firing = awaitScrape(s -> launchQueueWait(s) > 30, "the launch queue's wait beyond 30 s in /metrics");
    assertThat(firing.value("kandev_sessions_starting_oldest_seconds")).isGreaterThan(2700);
    assertThat(firing.value("kandev_workers_missing_beats")).isEqualTo(1);

    // All of it over: the rows gone (restored, forgotten), the queue's maximum decayed.
    cluster.fixtures.exec("UPDATE task_sessions SET state = 'FAILED', updated_at = now() WHERE id = 's-stuck'");
    cluster.fixtures.exec("DELETE FROM worker_presence WHERE worker_instance = 'killed-worker'");
    Scrape resolved = awaitScrape(s -> !(launchQueueWait(s) > 30) && s.value("kandev_sessions_starting_oldest_seconds") == 0
        && s.value("kandev_workers_missing_beats") == 0 && noStepWaitsForTheStore(s),
        "the launch queue's maximum to decay, and no step waiting for the store");

    String launchQueue = label(firing, "temporal_activity_schedule_to_start_latency_seconds_max", "/launch\"", "task_queue");
    String pool = label(firing, "hikaricp_connections_timeout_total", "", "pool");
    String workflowQueue = label(firing, "temporal_workflow_task_execution_failed_total", "NoSuchWorkflow", "task_queue");
    String namespace = label(firing, "temporal_workflow_task_execution_failed_total", "NoSuchWorkflow", "namespace");
    // Minutes 0-2 quiet, 3-9 all of it, 10-21 over. A counter's step shows in increase() while its
    // window reaches back to the quiet minutes (3-6); a "for: 5m" condition fires from minute 8.
    Promtool.Result rules = new AlertRuleTestFile(List.of(
            new AlertRuleTestFile.Phase(quiet, 3), new AlertRuleTestFile.Phase(firing, 7), new AlertRuleTestFile.Phase(resolved, 12)),
        INSTANCE)
        .expect(2, ".*", List.of())
        .expect(5, "KandevWorkerBeatsFailing|KandevStorePoolExhausted|KandevWorkflowTaskFailures|KandevResumesFailing", List.of(
            "alertname=\"KandevStorePoolExhausted\", instance=\"" + INSTANCE + "\", pool=\"" + pool + "\", severity=\"page\"",
            "alertname=\"KandevWorkerBeatsFailing\", instance=\"" + INSTANCE + "\", severity=\"page\"",
            "alertname=\"KandevWorkflowTaskFailures\", namespace=\"" + namespace + "\", severity=\"page\", task_queue=\""
                + workflowQueue + "\", workflow_type=\"NoSuchWorkflow\""))
        .expect(9, "KandevLaunchQueueSlow|KandevSessionStuckStarting|KandevWorkerMissingBeats", List.of(
            "alertname=\"KandevLaunchQueueSlow\", severity=\"warn\", task_queue=\"" + launchQueue + "\"",
            "alertname=\"KandevSessionStuckStarting\", severity=\"page\"",
            "alertname=\"KandevWorkerMissingBeats\", severity=\"page\""))
        .expect(21, ".*", List.of()) // ten minutes after it all ended: every alert resolved
        .run(cluster.dir().resolve("promtool"));
    assertThat(rules.exitCode()).as(rules.output()).isZero();
  }

  /**
   * Whether no step waits for a store connection: a wait under a loaded machine's scrape is a real
   * pending connection, which KandevStorePoolExhausted rightly counts, so the quiet and the resolved
   * phases are scrapes without one.
   */
  private static boolean noStepWaitsForTheStore(Scrape scrape) {
    return scrape.value("hikaricp_connections_pending") == 0;
  }

  /** The longest a launch waited in a launch queue, as the SDK's timer shows it (NaN: none served). */
  private static double launchQueueWait(Scrape scrape) {
    return scrape.samples().entrySet().stream()
        .filter(e -> Scrape.name(e.getKey()).equals("temporal_activity_schedule_to_start_latency_seconds_max"))
        .filter(e -> e.getKey().contains("/launch\""))
        .mapToDouble(Map.Entry::getValue).max().orElse(Double.NaN);
  }

  /** The value of {@code label} of the first series of {@code metric} that contains {@code containing}. */
  private static String label(Scrape scrape, String metric, String containing, String label) {
    String series = scrape.samples().keySet().stream()
        .filter(s -> Scrape.name(s).equals(metric) && s.contains(containing)).findFirst()
        .orElseThrow(() -> new AssertionError("no " + metric + " with " + containing));
    Matcher m = LABEL.matcher(series);
    while (m.find()) {
      if (m.group(1).equals(label)) {
        return m.group(2);
      }
    }
    throw new AssertionError(series + " has no label " + label);
  }

  private String tables(String... names) {
    return String.join(", ", Arrays.stream(names).map(n -> cluster.schema() + "." + n).toList());
  }

  /** Scrapes about once a second until {@code done} holds for a scrape, and returns that scrape. */
  private Scrape awaitScrape(Predicate<Scrape> done, String what) {
    long[] last = {0};
    return Await.until(() -> {
      long due = last[0] + Duration.ofSeconds(1).toNanos() - System.nanoTime();
      if (last[0] != 0 && due > 0) {
        try {
          Thread.sleep(Duration.ofNanos(due).toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      last[0] = System.nanoTime();
      return scrape();
    }, done, HANG, what);
  }

  private Scrape scrape() {
    return Scrape.parse(scrapeText());
  }

  private String scrapeText() {
    try {
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
          .timeout(Duration.ofMinutes(2)).build(), HttpResponse.BodyHandlers.ofString());
      return response.body();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
