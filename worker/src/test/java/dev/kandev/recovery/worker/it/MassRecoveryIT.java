package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.ActivityRun;
import dev.kandev.recovery.worker.harness.RecoveryCluster.AgentEvent;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 200 sessions of one host lost at once: its worker is killed while all their agents run. Its next
 * worker's restart recovery resumes every one of them in their own provider sessions, never with
 * more launches at a time than its cap, none launched twice, none left STARTING, each started
 * eagerly by the worker that runs it.
 */
public class MassRecoveryIT {
  private static final int SESSIONS = 200;
  private static final int LAUNCH_CAP = 4;
  private static final String HOST = "h1";
  private static final Map<String, String> LIMITS = Map.of(
      "KANDEV_MAX_CONCURRENT_LAUNCHES", Integer.toString(LAUNCH_CAP),
      "KANDEV_MAX_RUNNING_AGENTS", Integer.toString(SESSIONS + 10));

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void twoHundredLostSessionsAreAllRecoveredWithinTheLaunchCap() throws Exception {
    cluster.dev("dev");
    cluster.worker("w-h1", HOST, LIMITS);
    List<String> sessionIds = IntStream.range(0, SESSIONS).mapToObj(i -> "m" + i).toList();
    Map<String, ResumeHandle> firstRuns = new LinkedHashMap<>();
    for (String sessionId : sessionIds) {
      cluster.newSession(sessionId, SessionState.CREATED);
      cluster.bindHost(sessionId, HOST);
      firstRuns.put(sessionId, cluster.start(sessionId, ResumeMode.START_FRESH));
    }
    Map<String, String> tokenOf = new LinkedHashMap<>();
    for (var run : firstRuns.entrySet()) {
      tokenOf.put(run.getKey(), run.getValue().await(Duration.ofMinutes(5)).providerSessionId());
    }

    cluster.kill("w-h1");
    cluster.worker("w-h1-next", HOST, LIMITS);

    Await.until(() -> cluster.fixtures.count("SELECT count(*) FROM task_sessions t JOIN executors_running e"
            + " ON e.session_id = t.id WHERE t.state = 'WAITING_FOR_INPUT' AND e.status = 'running'"
            + " AND e.worker_instance = 'w-h1-next'") == SESSIONS,
        Duration.ofMinutes(10), "all " + SESSIONS + " sessions resumed on the next worker of " + HOST);

    assertThat(cluster.fixtures.count("SELECT count(*) FROM task_sessions WHERE state = 'STARTING'")).isZero();
    // Each settled resume releases its lock last.
    Await.until(() -> cluster.fixtures.count("SELECT count(*) FROM resume_locks") == 0, Duration.ofMinutes(1),
        "every recovery to release its resume lock");
    List<AgentEvent> loads = cluster.agentEvents().stream()
        .filter(e -> e.event().equals("session") && Boolean.TRUE.equals(e.loaded())).toList();
    for (String sessionId : sessionIds) {
      String token = tokenOf.get(sessionId);
      assertThat(cluster.identity(sessionId).resumeToken()).as(sessionId).isEqualTo(token);
      assertThat(loads).as("loads of %s's provider session", sessionId)
          .filteredOn(e -> token.equals(e.sessionId())).extracting(AgentEvent::host).containsExactly(HOST);
    }

    List<ActivityRun> launches = new ArrayList<>();
    for (String sessionId : sessionIds) {
      cluster.activities(ResumeRequest.workflowId(sessionId), null).stream()
          .filter(run -> run.type().equals("LaunchAgent")).forEach(launches::add);
    }
    assertThat(launches).hasSize(SESSIONS).allMatch(run -> run.worker().equals("w-h1-next"));
    assertThat(ActivityRun.mostAtOnce(launches)).as("launches under way at once").isBetween(1, LAUNCH_CAP);
    assertThat(sessionIds).as("recoveries whose first workflow task came back in the start's answer (eager start)")
        .allMatch(id -> cluster.client().fetchHistory(ResumeRequest.workflowId(id)).getEvents().get(0)
            .getWorkflowExecutionStartedEventAttributes().getEagerExecutionAccepted());
  }
}
