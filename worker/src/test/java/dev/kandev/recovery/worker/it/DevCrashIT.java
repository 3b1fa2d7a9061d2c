package dev.kandev.recovery.worker.it;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.LostLaunch;
import dev.kandev.recovery.worker.harness.RecordedHistories;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code dev} killed with SIGKILL while a resume is in LAUNCH_AGENT: the real Temporal server keeps
 * the run, the next {@code dev} continues it from its history, and the session ends restored with
 * its token — no stale STARTING, no lock, no agent left — and the history outlives a server restart.
 */
public class DevCrashIT {
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void aDevKilledMidLaunchContinuesTheSameRunAfterItsRestartAndKeepsTheHistory() throws Exception {
    cluster.dev("dev-a");
    HeldLaunch held = HeldLaunch.start(cluster, "s1");
    String token = held.token();
    ResumeHandle resume = held.resume();
    long agent = held.agent().pid();

    cluster.kill("dev-a");
    cluster.agentMode("normal");
    Await.until(() -> ProcessHandle.of(agent).map(p -> !p.isAlive()).orElse(true), Duration.ofSeconds(30),
        "the killed dev's agent to end (its stdin closed)");
    KandevProcess devB = cluster.dev("dev-b");
    assertThat(devB.output()).contains("reused the dev server a previous dev left running")
        .contains("Predecessor  dev-a (pid");

    ResumeFailure failure = RecoveryCluster.awaitFailure(cluster.resumes().attach("s1", resume.runId()), Duration.ofMinutes(2));
    LostLaunch.assertFailedOnItsHeartbeat(failure);
    assertThat(cluster.state("s1")).isEqualTo(FAILED);
    assertThat(cluster.transitions("s1")).endsWith("FAILED>STARTING", "STARTING>FAILED");
    assertThat(cluster.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(cluster.lockHeld("s1")).isFalse();
    assertThat(TestStores.claimsLiveProcess(cluster.executor("s1").orElseThrow())).isFalse();

    // The run lives in the server's database file: it is there after the server itself restarted.
    cluster.process("dev-b").terminate(Duration.ofMinutes(1));
    cluster.dev("dev-c");
    WorkflowExecutionHistory history = cluster.client().fetchHistory(ResumeRequest.workflowId("s1"), resume.runId());
    List<EventType> events = history.getEvents().stream().map(HistoryEvent::getEventType).toList();
    assertThat(events).contains(EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT)
        .endsWith(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED);
    RecordedHistories.recordIfAsked(history, "fewer-events-resume-dev-killed-during-launch");

    ResumeResult next = cluster.start("s1", ResumeMode.RESUME).await(Duration.ofMinutes(2));
    assertThat(next.loaded()).isTrue();
    assertThat(next.providerSessionId()).isEqualTo(token);
  }
}
