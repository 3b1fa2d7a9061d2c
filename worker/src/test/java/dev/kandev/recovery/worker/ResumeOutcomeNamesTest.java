package dev.kandev.recovery.worker;

import static dev.kandev.recovery.workflows.model.SessionState.CREATED;
import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.RecordedHistories;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.client.ResumeFilter;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import java.time.Duration;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A failed resume has one name wherever an operator reads it: the CLI's {@code FAILED at <step>},
 * the {@code KandevOutcome} search attribute ({@code resumes --outcome FAILED}, the Web UI's filter)
 * and the Web UI's Current Details; and its message names its type once.
 */
public class ResumeOutcomeNamesTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final ResumeHarness harness = new ResumeHarness(db);

  @Test
  void aResumeRefusedBeforeAnythingChangedIsFailedEverywhere() throws Exception {
    ResumeFailure failure = harness.resumeFailing("s-nope", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(ResumeStep.READ_CONTEXT);
    assertThat(failure.failureType()).isEqualTo("SESSION_NOT_FOUND");
    assertThat(outcome("s-nope")).isEqualTo("FAILED");
    assertThat(currentDetails("s-nope")).startsWith("**FAILED** at READ_CONTEXT (SESSION_NOT_FOUND)")
        .doesNotContain("DONE");
    RecordedHistories.recordIfAsked(harness.history("s-nope"), "lost-task-writes-resume-rejected");
  }

  @Test
  void aFailedLaunchSaysFailedInItsCurrentDetailsAndNamesItsTypeOnce() throws Exception {
    harness.establishedSession("s1", FAILED);
    harness.agentMode("exit-before-initialize");

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(outcome("s1")).isEqualTo("FAILED");
    assertThat(currentDetails("s1")).startsWith("**FAILED** at LAUNCH_AGENT (AGENT_EXITED_BEFORE_INITIALIZE)")
        .contains("session now FAILED");
    assertThat(failure.message().split("AGENT_EXITED_BEFORE_INITIALIZE", -1)).as(failure.message()).hasSize(2);

    harness.agentMode("normal");
    harness.resume("s1", ResumeMode.RESUME);
    // Under the outcome, what was resumed and why (the memo's summary until "fewer-events").
    assertThat(currentDetails("s1")).startsWith("**RESUMED**")
        .endsWith("\n\nResume of session s1 (task " + ResumeHarness.taskOf("s1") + ", agent test-agent) from FAILED, reason user, requested by test");
  }

  /**
   * Issue 43: a cancel that stops the launch under way makes the launch fail with the cancellation as
   * its cause; Temporal ends such a run CANCELED, and the listing's outcome says so too.
   */
  @Test
  void aResumeCancelledWhileItsLaunchRunsIsCancelledInTheListingToo() throws Exception {
    harness.establishedSession("s1", FAILED);
    harness.agentMode("hang-initialize");
    ResumeHandle resume = harness.start("s1", ResumeMode.RESUME);
    Await.until(() -> harness.fixtures().count(
            "SELECT count(*) FROM executors_running WHERE session_id = 's1' AND status = 'starting'") == 1,
        Duration.ofSeconds(60), "the launch to start the agent (it hangs in initialize)");

    resume.cancel();

    assertThatThrownBy(() -> resume.await(Duration.ofMinutes(1)))
        .isInstanceOf(WorkflowFailedException.class).hasCauseInstanceOf(CanceledFailure.class);
    assertThat(outcome("s1")).isEqualTo("CANCELLED");
    assertThat(currentDetails("s1")).startsWith("**CANCELLED** at LAUNCH_AGENT");
    assertThat(harness.state("s1")).isEqualTo(FAILED);
  }

  /** A Resume never creates a conversation: with none stored it is refused, and Start fresh is the way on. */
  @Test
  void aResumeOfASessionWithNoStoredConversationIsRefusedWithStartFreshAsItsAction() throws Exception {
    harness.newSession("s1", CREATED);

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(ResumeStep.READ_CONTEXT);
    assertThat(failure.failureType()).isEqualTo(FailureType.NO_STORED_SESSION.type());
    assertThat(failure.recoveryActions()).containsExactly(ResumeMode.START_FRESH);
    assertThat(failure.sessionState()).as("refused before anything changed").isNull();
    assertThat(harness.state("s1")).isEqualTo(CREATED);
    assertThat(harness.transitions("s1")).isEmpty();
    assertThat(outcome("s1")).isEqualTo("FAILED");
    assertThat(harness.resume("s1", ResumeMode.START_FRESH).outcome()).isEqualTo(ResumeOutcome.STARTED_FRESH);
  }

  @Test
  void theFailedFilterAlsoFindsResumesRejectedBeforeOneName() {
    assertThat(new ResumeFilter(null, null, "FAILED", false).query())
        .endsWith(RecoverySearchAttributes.OUTCOME.getName() + " IN ('FAILED', 'REJECTED')");
    assertThat(new ResumeFilter(null, null, "RESUMED", false).query())
        .endsWith(RecoverySearchAttributes.OUTCOME.getName() + " = 'RESUMED'");
  }

  private WorkflowStub latest(String sessionId) {
    return harness.client().newUntypedWorkflowStub(ResumeRequest.workflowId(sessionId));
  }

  private String outcome(String sessionId) {
    return latest(sessionId).describe().getTypedSearchAttributes().get(RecoverySearchAttributes.OUTCOME);
  }

  /** What the Web UI shows as Current Details. */
  private String currentDetails(String sessionId) {
    return latest(sessionId).query("__temporal_workflow_metadata", WorkflowMetadata.class).getCurrentDetails();
  }
}
