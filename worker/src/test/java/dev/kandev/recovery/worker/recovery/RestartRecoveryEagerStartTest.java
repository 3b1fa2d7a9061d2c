package dev.kandev.recovery.worker.recovery;

import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.MirrorExecutorsRunningStore;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Restart recovery's starts on a real server (the SDK's test server does not record eager starts):
 * the worker that runs the resumes starts them, and the server hands each one's first workflow task
 * back in the start's answer. The start keeps its semantics: a resume of the session that already
 * runs is attached to, never doubled.
 */
public class RestartRecoveryEagerStartTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final ResumeHarness harness = ResumeHarness.withReplaceableWorker(db, UnaryOperator.identity());

  @Test
  void theRestartedWorkersRecoveryIsStartedEagerlyAndAttachesToTheResumeThatRuns() throws Exception {
    String token = harness.establishedSession("s1", WAITING_FOR_INPUT);
    assertThat(startedEagerly("s1")).as("the first launch, started by a client without a worker").isFalse();
    harness.replaceWorker("worker-b");
    // A killed process records nothing: its row still claims the agent of worker-a, which is gone.
    harness.fixtures().exec("UPDATE executors_running SET status = 'running' WHERE session_id = ?", "s1");
    harness.agentMode("hold-load");

    ResumeClient starts = new ResumeClient(harness.workerClient(), ResumeHarness.QUEUE).startingEagerly();
    RestartRecovery recovery = new RestartRecovery(db.transactions(), new MirrorExecutorsRunningStore(), starts, "test-host", "worker-b");
    assertThat(recovery.resumeLostSessions()).containsExactly("s1");
    Path held = Path.of(harness.agentModeFile() + ".held");
    Await.until(() -> Files.exists(held), Duration.ofMinutes(1), "the recovery's launch to hold in session/load");

    ResumeHandle again = starts.start(ResumeRequest.restartRecovery("s1", "worker:worker-b"));
    assertThat(again.runId()).as("the running resume, attached to").isEqualTo(latestRunId("s1"));
    harness.agentMode("normal");
    ResumeResult resumed = again.await(Duration.ofMinutes(2));

    assertThat(resumed.providerSessionId()).isEqualTo(token);
    assertThat(harness.state("s1")).isEqualTo(WAITING_FOR_INPUT);
    assertThat(startedEagerly("s1")).as("the server handed the first workflow task back in the start's answer").isTrue();
    List<HistoryEvent> events = harness.history("s1").getEvents();
    assertThat(events).filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED).hasSize(1);
    assertThat(events).filteredOn(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED).first()
        .satisfies(e -> assertThat(e.getWorkflowTaskStartedEventAttributes().getIdentity()).contains("worker-b"));
  }

  private boolean startedEagerly(String sessionId) {
    return harness.history(sessionId).getEvents().get(0).getWorkflowExecutionStartedEventAttributes().getEagerExecutionAccepted();
  }

  private String latestRunId(String sessionId) {
    return harness.client().newUntypedWorkflowStub(ResumeRequest.workflowId(sessionId)).describe().getExecution().getRunId();
  }
}
