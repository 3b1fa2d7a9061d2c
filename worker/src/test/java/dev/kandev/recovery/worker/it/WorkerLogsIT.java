package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the {@code worker} process logs on stderr, on a real Temporal server. */
public class WorkerLogsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern DATED_LINE =
      Pattern.compile("^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} (TRACE|DEBUG|INFO |WARN |ERROR) ");
  private static final Pattern STACK_FRAME = Pattern.compile("^\\s+at [\\w.$]+\\(.*\\)$");

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  /** A Temporal server without a worker; under the cluster's folder, so the cluster stops it after its processes. */
  @BeforeEach
  void setUp() {
    DevTemporalServer.start(RealTemporalServer.cli(), cluster.dir().resolve("temporal"), cluster.temporalPort, cluster.uiPort);
  }

  /** {@code kandev-recovery worker} with {@code extraEnv}, its stderr apart, once it printed "Ready.". */
  private KandevProcess worker(String instance, Map<String, String> extraEnv) {
    Map<String, String> env = new HashMap<>(cluster.environment(instance));
    env.put("TEMPORAL_ADDRESS", cluster.temporalAddress());
    env.putAll(extraEnv);
    return cluster.started(instance, KandevProcess.startInOwnSession(instance, env, cluster.logDir(), "worker"));
  }

  @Test
  void expectedFailuresAreOneDatedLineEachWithoutAStackTraceAndNamingTheirWorkflow() throws Exception {
    KandevProcess worker = worker("worker-logs", Map.of());
    cluster.newSession("s-1", SessionState.CREATED);
    cluster.start("s-1", ResumeMode.START_FRESH).await(Duration.ofMinutes(2));

    assertThat(failing("s-missing", ResumeMode.RESUME).failureType()).isEqualTo("SESSION_NOT_FOUND");
    assertThat(failing("s-1", ResumeMode.RESUME).failureType()).isEqualTo("AGENT_ALREADY_RUNNING");
    worker.terminate(Duration.ofSeconds(60));

    List<String> log = worker.stderr().lines().toList();
    assertThat(log.stream().filter(l -> l.contains("SESSION_NOT_FOUND"))).as(worker.stderr()).hasSize(1);
    assertThat(log.stream().filter(l -> l.contains("AGENT_ALREADY_RUNNING"))).as(worker.stderr()).hasSize(1);
    assertThat(log).as("no stack trace anywhere").noneMatch(l -> STACK_FRAME.matcher(l).matches())
        .noneMatch(l -> l.startsWith("Caused by:"));
    assertThat(worker.output()).as("a real server takes worker heartbeats").doesNotContain("worker heartbeats");

    assertThat(log).isNotEmpty().allMatch(l -> DATED_LINE.matcher(l).find(), "starts with date and time");
    assertThat(log).anySatisfy(l -> assertThat(l).contains("SESSION_NOT_FOUND")
        .containsPattern(" \\[session=s-missing workflow=resume-session-s-missing run=[0-9a-f-]{36}\\] - "));
    assertThat(log).anySatisfy(l -> assertThat(l).contains("started agent 'test-agent'")
        .containsPattern(" \\[session=s-1 workflow=resume-session-s-1 run=[0-9a-f-]{36} activity=LaunchAgent\\] - "));
  }

  @Test
  void jsonFormatIsOneObjectPerLineWithTimeAndTheWorkflowContext() throws Exception {
    KandevProcess worker = worker("worker-json", Map.of("KANDEV_LOG_FORMAT", "json"));
    cluster.newSession("s-1", SessionState.CREATED);
    cluster.start("s-1", ResumeMode.START_FRESH).await(Duration.ofMinutes(2));
    assertThat(failing("s-missing", ResumeMode.RESUME).failureType()).isEqualTo("SESSION_NOT_FOUND");
    worker.terminate(Duration.ofSeconds(60));

    List<JsonNode> events = new ArrayList<>();
    for (String line : worker.stderr().lines().toList()) {
      JsonNode event = JSON.readTree(line);
      assertThat(event.isObject()).as(line).isTrue();
      assertThat(Instant.parse(event.path("time").asText())).as(line).isNotNull();
      assertThat(event.path("level").asText()).as(line).isIn("DEBUG", "INFO", "WARN", "ERROR");
      assertThat(event.path("loggerName").asText()).as(line).isNotEmpty();
      events.add(event);
    }
    JsonNode launched = events.stream()
        .filter(e -> e.path("formattedMessage").asText().contains("started agent 'test-agent'")).findFirst().orElseThrow();
    assertThat(launched.path("mdc").path("SessionId").asText()).isEqualTo("s-1");
    assertThat(launched.path("mdc").path("WorkflowId").asText()).isEqualTo("resume-session-s-1");
    assertThat(launched.path("mdc").path("RunId").asText()).hasSize(36);
    assertThat(launched.path("mdc").path("ActivityType").asText()).isEqualTo("LaunchAgent");
    List<JsonNode> notFound = events.stream()
        .filter(e -> e.path("formattedMessage").asText().contains("SESSION_NOT_FOUND")).toList();
    assertThat(notFound).hasSize(1);
    assertThat(notFound.get(0).path("mdc").path("SessionId").asText()).isEqualTo("s-missing");
    assertThat(notFound.get(0).path("throwable").isNull()).isTrue();
  }

  @Test
  void aGenuineFaultKeepsItsStackTrace() throws Exception {
    KandevProcess worker = worker("worker-logs", Map.of());
    cluster.newSession("s-1", SessionState.CREATED);
    cluster.fixtures.exec("ALTER TABLE resume_locks RENAME TO resume_locks_away");

    ResumeHandle handle = cluster.start("s-1", ResumeMode.START_FRESH);
    Await.until(() -> worker.stderr().lines().anyMatch(l -> STACK_FRAME.matcher(l).matches()),
        Duration.ofSeconds(60), "the failed lock acquisition's stack trace");
    cluster.fixtures.exec("ALTER TABLE resume_locks_away RENAME TO resume_locks");
    handle.await(Duration.ofMinutes(2));

    assertThat(worker.stderr()).contains("Local activity failure", "activityType=AcquireResumeLock",
        "relation \"resume_locks\" does not exist");
  }

  private ResumeFailure failing(String sessionId, ResumeMode mode) throws Exception {
    return RecoveryCluster.awaitFailure(cluster.start(sessionId, mode), Duration.ofMinutes(2));
  }
}
