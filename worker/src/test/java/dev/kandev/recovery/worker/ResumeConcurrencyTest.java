package dev.kandev.recovery.worker;

import static dev.kandev.recovery.workflows.model.SessionState.CANCELLED;
import static dev.kandev.recovery.workflows.model.SessionState.CREATED;
import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.WorkerPresenceStore;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.ActivityHooks;
import dev.kandev.recovery.worker.harness.HistorySteps;
import dev.kandev.recovery.worker.harness.RecordedHistories;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.client.ResumeConflictException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import io.temporal.client.WorkflowFailedException;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.failure.CanceledFailure;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Races and cancellation: the session always ends settled or restored, never STARTING. */
public class ResumeConcurrencyTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  private final ActivityHooks hooks = new ActivityHooks();
  @RegisterExtension @Order(2) final ResumeHarness harness = new ResumeHarness(db, hooks);

  @Test
  void aTerminalTransitionWinningDuringLaunchIsLeftAloneAndTheAgentStopped() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.gitHubBacked("s1", "github_app");
    hooks.after("launchAgent", () -> db.tx(h -> harness.sessions().transition(h,
        "s1", Set.of(STARTING), CANCELLED, "user cancelled the task", "", Fence.none())));

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(ResumeStep.SETTLE_SESSION);
    assertThat(failure.failureType()).isEqualTo("SESSION_STATE_SUPERSEDED");
    assertThat(failure.sessionState()).isEqualTo(CANCELLED);
    assertThat(harness.state("s1")).isEqualTo(CANCELLED);
    assertThat(harness.transitions("s1")).last().isEqualTo("STARTING>CANCELLED");
    assertThat(harness.components().agentHost().isRunning("s1")).isFalse();
    assertThat(harness.liveLeases("s1")).isZero();
    assertThat(harness.lockHeld("s1")).isFalse();
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
  }

  @Test
  void cancellingTheResumeDuringLaunchLeavesNoStaleStartingAndNoAgent() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.agentMode("hang-initialize");
    ResumeHandle resume = harness.start("s1", ResumeMode.RESUME);
    Await.until(() -> harness.components().agentHost().isRunning("s1") || launching(resume), Duration.ofSeconds(30),
        "the launch to start");

    resume.cancel();

    assertThatThrownBy(() -> resume.await(Duration.ofMinutes(1)))
        .isInstanceOf(WorkflowFailedException.class)
        .hasCauseInstanceOf(CanceledFailure.class);
    assertThat(harness.state("s1")).isEqualTo(FAILED);
    assertThat(harness.transitions("s1")).last().isEqualTo("STARTING>FAILED");
    assertThat(harness.components().agentHost().isRunning("s1")).isFalse();
    assertThat(harness.lockHeld("s1")).isFalse();
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
  }

  /**
   * A launch that no worker of the session's host took: cancelling the resume restores the session
   * without asking that host to stop what it never started (which waited the host wait, a minute).
   */
  @Test
  void cancellingAResumeWhoseLaunchNoWorkerTookRestoresTheSessionAndStopsNothing() throws Exception {
    harness.newSession("s1", CREATED);
    harness.fixtures().exec("UPDATE task_sessions SET executor_host = 'far-host' WHERE id = ?", "s1");
    ResumeHandle resume = harness.start("s1", ResumeMode.START_FRESH);
    Await.until(() -> HistorySteps.scheduledTypes(harness.history("s1")).contains("LaunchAgent"), Duration.ofSeconds(30),
        "the launch to wait on far-host's queue");

    resume.cancel();

    assertThatThrownBy(() -> resume.await(Duration.ofMinutes(2)))
        .isInstanceOf(WorkflowFailedException.class)
        .hasCauseInstanceOf(CanceledFailure.class);
    WorkflowExecutionHistory history = harness.history("s1");
    RecordedHistories.recordIfAsked(history, "one-upsert-resume-cancelled");
    assertThat(HistorySteps.scheduledTypes(history)).as("nothing ran on a host, so nothing is stopped")
        .contains("LaunchAgent").doesNotContain("StopAgent");
    assertThat(harness.state("s1")).isEqualTo(CREATED);
    assertThat(harness.liveLeases("s1")).isZero();
    assertThat(harness.lockHeld("s1")).isFalse();
  }

  @Test
  void aSecondRequestForTheSameSessionAttachesAndAnotherModeIsRefused() throws Exception {
    harness.establishedSession("s1", FAILED);
    harness.agentMode("hang-initialize");
    ResumeHandle first = harness.start("s1", ResumeMode.RESUME);
    Await.until(() -> launching(first), Duration.ofSeconds(30), "the launch to start");

    ResumeHandle second = harness.start("s1", ResumeMode.RESUME);

    assertThat(second.runId()).isEqualTo(first.runId());
    assertThatThrownBy(() -> harness.start("s1", ResumeMode.START_FRESH))
        .isInstanceOf(ResumeConflictException.class)
        .hasMessageContaining("already being resumed with mode RESUME");
    first.cancel();
    awaitEnd(first);
    assertThat(harness.state("s1")).isEqualTo(FAILED);
  }

  @Test
  void aResumeOfASessionWhoseAgentRunsOnAnotherLiveWorkerIsRefusedUntilThatWorkerIsGone() throws Exception {
    String token = harness.establishedSession("s1", WAITING_FOR_INPUT);
    harness.fixtures().exec("UPDATE executors_running SET worker_instance = 'worker-z', status = 'running'"
        + " WHERE session_id = ?", "s1");
    db.run(h -> new WorkerPresenceStore().beat(h, "worker-z", "test-host"));
    List<String> transitionsBefore = harness.transitions("s1");

    ResumeFailure refused = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(refused.failureType()).isEqualTo("AGENT_ALREADY_RUNNING");
    assertThat(refused.message()).contains("already runs on worker worker-z");
    assertThat(refused.recoveryActions()).isEmpty();
    assertThat(harness.state("s1")).isEqualTo(WAITING_FOR_INPUT);
    assertThat(harness.transitions("s1")).isEqualTo(transitionsBefore);
    assertThat(harness.lockHeld("s1")).isFalse();

    harness.fixtures().exec("UPDATE worker_presence SET last_seen_at = now() - interval '2 minutes'");
    ResumeResult resumed = harness.resume("s1", ResumeMode.RESUME);
    assertThat(resumed.loaded()).isTrue();
    assertThat(resumed.providerSessionId()).isEqualTo(token);
  }

  private static boolean launching(ResumeHandle resume) {
    try {
      return resume.progress().step() == ResumeStep.LAUNCH_AGENT;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Waits for the resume to end, however it ends. */
  private static void awaitEnd(ResumeHandle resume) {
    try {
      resume.await(Duration.ofMinutes(2));
    } catch (TimeoutException e) {
      throw new AssertionError("the resume did not end", e);
    } catch (RuntimeException ended) {
      // failed or cancelled: the assertions that follow say whether that was right
    }
  }
}
