package dev.kandev.recovery.worker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeLockOwner;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 43: a resume lock whose holder's run has ended (here: terminated by an operator, its
 * compensation never ran) is taken over at once by the session's next resume, which asks Temporal —
 * not after the lock's time to live.
 */
public class LockOfAnEndedRunTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final ResumeHarness harness = new ResumeHarness(db);

  @Test
  void theNextResumeTakesOverTheLockOfATerminatedRunAtOnce() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.agentMode("hang-initialize");
    ResumeHandle first = harness.start("s1", ResumeMode.RESUME);
    Await.until(() -> harness.state("s1") == STARTING && harness.lockHeld("s1"), Duration.ofSeconds(60),
        "the first resume to hold the lock and the session STARTING");
    harness.client().newUntypedWorkflowStub(ResumeRequest.workflowId("s1"), Optional.of(first.runId()), Optional.empty()).terminate("test: an operator ends the run");
    // The launch learns from its heartbeat that its run is gone and stops its agent.
    Await.until(() -> harness.fixtures().count("SELECT count(*) FROM executors_running WHERE session_id = 's1'"
            + " AND status IN ('starting', 'running', 'ready')") == 0, Duration.ofSeconds(60),
        "the terminated run's launch to stop its agent");
    // What an operator's repair does to the session; the lock stays the ended run's.
    harness.fixtures().exec("UPDATE task_sessions SET state = 'FAILED' WHERE id = 's1'");
    String endedOwner = ResumeLockOwner.of(ResumeRequest.workflowId("s1"), first.runId());
    assertThat(harness.fixtures().string("SELECT owner FROM resume_locks WHERE session_id = 's1'")).isEqualTo(endedOwner);
    harness.agentMode("normal");

    ResumeResult next = harness.resume("s1", ResumeMode.RESUME);

    assertThat(next.outcome()).isEqualTo(ResumeOutcome.RESUMED);
    assertThat(next.providerSessionId()).isEqualTo(token);
    assertThat(harness.lockHeld("s1")).isFalse();
    assertThat(harness.fixtures().count("SELECT count(*) FROM released_resume_locks WHERE owner = ?", endedOwner))
        .as("the ended run counts as released").isOne();
  }
}
