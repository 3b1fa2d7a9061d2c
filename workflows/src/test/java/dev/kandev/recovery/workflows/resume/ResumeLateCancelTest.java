package dev.kandev.recovery.workflows.resume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.client.ResumeClient;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cancel that arrives late (docs/contract.md, "Stopping a resume"). Temporal's Java SDK ends a run
 * CANCELED whenever a cancel is pending when it ends, whatever it returned or failed with: a resume
 * failing for another cause as the cancel arrives lists CANCELLED (it compensated), and one the cancel
 * reaches once its settle completed keeps its result and outcome (the session resumed).
 */
class ResumeLateCancelTest {
  private static final String QUEUE = "late-cancel";
  private static final String WORKFLOW_ID = ResumeRequest.workflowId("s1");
  private TestWorkflowEnvironment env;
  private ResumeSagaOrderTest.Recorder recorder;

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    RecoverySearchAttributes.ALL.forEach(key ->
        env.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
    recorder = new ResumeSagaOrderTest.Recorder();
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(ResumeSessionWorkflowImpl.class);
    worker.registerActivitiesImplementations(recorder);
    env.start();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  @Test
  void aCancelArrivingWhileTheLaunchFailsForAnotherCauseIsListedCancelled() {
    recorder.failAt = "launchAgent";
    recorder.during = step -> {
      if (step.equals("launchAgent")) {
        // The run asked the launch to stop (it waits for the launch to end); then the launch fails with
        // its own (injected) failure. Failing before that request lands races it, which Temporal's server
        // takes in its stride but the SDK's test server does not: the run hangs (sdk-java#2391).
        cancelAndAwait(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED);
      }
    };

    assertCanceled(run());

    assertThat(recorder.calls).contains("restorePriorState", "revokeCredentialLeases", "stopAgent");
    assertThat(outcome()).isEqualTo("CANCELLED");
    assertThat(currentDetails()).startsWith("**CANCELLED** as it failed at LAUNCH_AGENT (INJECTED)");
    assertThat(new ResumeClient(env.getWorkflowClient(), QUEUE).attach("s1", null).outcomeDespiteCancel())
        .as("a compensated run is not read as resumed").isEmpty();
  }

  @Test
  void aCancelArrivingWhileAFailedResumeReleasesItsLockIsListedCancelled() {
    recorder.failAt = "launchAgent";
    recorder.during = step -> {
      if (step.equals("releaseResumeLock")) {
        cancelAndAwait(null);
      }
    };

    assertCanceled(run());

    assertThat(outcome()).isEqualTo("CANCELLED");
    assertThat(currentDetails()).startsWith("**CANCELLED** as it failed at LAUNCH_AGENT (INJECTED)");
  }

  @Test
  void aCancelArrivingOnceTheSettleCompletedLeavesTheResumeStanding() {
    recorder.during = step -> {
      if (step.equals("releaseResumeLock")) {
        // the lock's release is a local activity: the run sees the cancel as it runs
        cancelAndAwait(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
      }
    };

    assertCanceled(run());

    assertThat(recorder.calls).contains("settleSession").doesNotContain("restorePriorState", "stopAgent");
    assertThat(outcome()).isEqualTo("RESUMED");
    assertThat(env.getWorkflowClient().newUntypedWorkflowStub(WORKFLOW_ID).describe().getStatus())
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED);
    // What the CLI and the Java starter read of such a run: resumed.
    assertThat(new ResumeClient(env.getWorkflowClient(), QUEUE).attach("s1", null).outcomeDespiteCancel())
        .contains(ResumeOutcome.RESUMED);
  }

  private WorkflowStub run() {
    WorkflowOptions options = WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId(WORKFLOW_ID)
        .setWorkflowTaskTimeout(Duration.ofSeconds(1)).build();
    ResumeSessionWorkflow workflow = env.getWorkflowClient().newWorkflowStub(ResumeSessionWorkflow.class, options);
    WorkflowClient.start(workflow::resume, new ResumeRequest("s1", ResumeMode.RESUME, "user", "test"));
    return WorkflowStub.fromTyped(workflow);
  }

  private static void assertCanceled(WorkflowStub run) {
    assertThatThrownBy(() -> run.getResult(2, TimeUnit.MINUTES, ResumeResult.class))
        .isInstanceOf(WorkflowFailedException.class).hasCauseInstanceOf(CanceledFailure.class);
  }

  /**
   * Cancels the run from inside a step and waits until its history records the cancel and, unless
   * {@code following} is null, an event of that type after it.
   */
  private void cancelAndAwait(EventType following) {
    env.getWorkflowClient().newUntypedWorkflowStub(WORKFLOW_ID).cancel();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!recorded(following)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the run's history did not show the cancel (and " + following + ") within 30 s");
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  private boolean recorded(EventType following) {
    List<EventType> types = env.getWorkflowClient().fetchHistory(WORKFLOW_ID).getEvents().stream()
        .map(HistoryEvent::getEventType).toList();
    int cancel = types.indexOf(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED);
    return cancel >= 0 && (following == null || types.subList(cancel + 1, types.size()).contains(following));
  }

  private String outcome() {
    return env.getWorkflowClient().newUntypedWorkflowStub(WORKFLOW_ID).describe().getTypedSearchAttributes()
        .get(RecoverySearchAttributes.OUTCOME);
  }

  /** What the Web UI shows as Current Details. */
  private String currentDetails() {
    return env.getWorkflowClient().newUntypedWorkflowStub(WORKFLOW_ID)
        .query("__temporal_workflow_metadata", WorkflowMetadata.class).getCurrentDetails();
  }
}
