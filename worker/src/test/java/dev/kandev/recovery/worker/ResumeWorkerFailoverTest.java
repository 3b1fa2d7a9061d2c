package dev.kandev.recovery.worker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.MirrorExecutorsRunningStore;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.ActivityHooks;
import dev.kandev.recovery.worker.harness.LostLaunch;
import dev.kandev.recovery.worker.harness.RecordedHistories;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A worker that dies mid-saga, after the session was moved to STARTING: another worker on the same
 * task queue takes the workflow over, and the session ends settled or restored — never STARTING,
 * never with a lost token, a live lease of a failed attempt or a held lock. On a real Temporal
 * server with the SDK's default worker options (sticky dispatch included).
 */
public class ResumeWorkerFailoverTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  private final ActivityHooks hooks = new ActivityHooks();
  @RegisterExtension @Order(2) final ResumeHarness harness = ResumeHarness.withReplaceableWorker(db, hooks);
  private final ExecutorsRunningStore executors = new MirrorExecutorsRunningStore();

  @Test
  void aWorkerDyingRightAfterStartingIsReplacedAndTheResumeSettles() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.gitHubBacked("s1", "github_app");
    CountDownLatch dying = new CountDownLatch(1);
    // The first worker persists STARTING and dies before it can report it: the step's effect
    // happened, its result is lost. The replacement runs the step again under the same fence and
    // goes on from there: lease, snapshot, launch, settle.
    hooks.after("markStarting", once(() -> {
      dying.countDown();
      hangUntilKilled();
    }));
    ResumeHandle resume = harness.start("s1", ResumeMode.RESUME);
    assertThat(dying.await(1, TimeUnit.MINUTES)).as("the first worker persisted STARTING").isTrue();
    assertThat(harness.state("s1")).isEqualTo(STARTING);

    Components replacement = harness.replaceWorker("worker-b");
    ResumeResult result = resume.await(Duration.ofMinutes(2));
    RecordedHistories.recordIfAsked(harness.history("s1"), "one-upsert-resume-worker-died-after-starting");

    assertThat(result.finalState()).isEqualTo(WAITING_FOR_INPUT);
    assertThat(result.loaded()).isTrue();
    assertThat(result.providerSessionId()).isEqualTo(token);
    assertThat(replacement.agentHost().isRunning("s1")).as("the replacement launched the agent").isTrue();
    // STARTING ran in the first workflow task, which the first worker never completed: the replacement
    // ran that task again (lock, context, STARTING), recognising its own STARTING by the fence.
    assertThat(harness.activityWorkers("s1")).containsExactly(
        "AcquireResumeLock@worker-b (local)", "ReadResumeContext@worker-b (local)", "MarkStarting@worker-b (local)",
        "IssueCredentialLeaseForAttempt@worker-b (local)", "PersistCredentialSnapshot@worker-b (local)",
        "LaunchAgent@worker-b", "SettleSession@worker-b (local)", "ReleaseResumeLock@worker-b (local)");
    assertThat(harness.transitions("s1")).endsWith("FAILED>STARTING", "STARTING>WAITING_FOR_INPUT");
    assertThat(harness.transitions("s1")).filteredOn("FAILED>STARTING"::equals).hasSize(1);
    assertThat(harness.snapshotJson("s1")).contains("github_app");
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(harness.lockHeld("s1")).isFalse();
  }

  /**
   * A local step's result is recorded only with the workflow task that ran it: a worker that dies
   * after the step's effect committed, before that task completed, leaves the step to run again on
   * the replacement. The lock is taken again with the same fence and the context read again before
   * anything changed: the session moves to STARTING and out of it exactly once, and the resume ends
   * settled with its token.
   */
  @Test
  void aWorkerDyingAfterTheContextWasReadIsReplacedAndTheResumeSettles() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    ResumeResult result = resumeReplacingTheWorkerAfter("readResumeContext").await(Duration.ofMinutes(2));

    assertThat(result.finalState()).isEqualTo(WAITING_FOR_INPUT);
    assertThat(result.loaded()).isTrue();
    assertThat(result.providerSessionId()).isEqualTo(token);
    assertThat(harness.activityWorkers("s1"))
        .contains("ReadResumeContext@worker-b (local)").doesNotContain("ReadResumeContext@worker-a (local)");
    // Set up as WAITING_FOR_INPUT>FAILED; then this resume's two transitions, each once.
    assertThat(harness.transitions("s1")).endsWith("WAITING_FOR_INPUT>FAILED", "FAILED>STARTING", "STARTING>WAITING_FOR_INPUT");
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(harness.lockHeld("s1")).isFalse();
  }

  /**
   * The lease was issued (committed), but the worker died before the workflow task that ran it
   * completed: the replacement runs the lease step again for the same attempt and gets the lease
   * issued before, not a second one. The agent is launched with that lease and its git redeems it.
   */
  @Test
  void aWorkerDyingAfterTheLeaseWasIssuedIsReplacedAndTheResumeLaunchesWithThatLease() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.gitHubBacked("s1", "github_app");
    ResumeResult result = resumeReplacingTheWorkerAfter("issueCredentialLeaseForAttempt").await(Duration.ofMinutes(2));
    RecordedHistories.recordIfAsked(harness.history("s1"), "one-upsert-resume-worker-died-after-lease");

    assertThat(result.finalState()).isEqualTo(WAITING_FOR_INPUT);
    assertThat(result.providerSessionId()).isEqualTo(token);
    assertThat(harness.activityWorkers("s1")).contains("IssueCredentialLeaseForAttempt@worker-b (local)")
        .doesNotContain("IssueCredentialLeaseForAttempt@worker-a (local)");
    assertThat(harness.fixtures().count("SELECT count(*) FROM credential_leases WHERE session_id = 's1'"))
        .as("one lease issued for the attempt, though its step ran twice").isOne();
    String leaseId = harness.fixtures().string("SELECT id FROM credential_leases WHERE session_id = 's1'");
    assertThat(harness.snapshotJson("s1")).contains(leaseId);
    assertThat(harness.fixtures().count("SELECT count(*) FROM credential_leases WHERE id = ? AND token_hash IS NOT NULL"
        + " AND revoked_at IS NULL", leaseId)).as("the launch minted that lease's token").isOne();
    String reply = harness.prompt("s1", "git-credential:github.com/acme/widgets").responseText();
    assertThat(reply).contains("username=x-access-token");
    assertThat(harness.transitions("s1")).filteredOn("FAILED>STARTING"::equals).hasSize(1);
    assertThat(harness.lockHeld("s1")).isFalse();
  }

  /**
   * The settle committed (and the lock release after it, in the second case), but the worker died
   * before the workflow task that ran them completed — and its agent went with it. The settle runs
   * again on the replacement, finds the agent gone and takes itself back (the session returns to
   * STARTING under the resume's lock, held again if its release was lost too): the resume fails with
   * AGENT_LOST and compensates like any failure. Never RESUMED with a dead agent: the session ends
   * FAILED with its token, its snapshot as before, no lease, no lock.
   */
  @ParameterizedTest
  @ValueSource(strings = {"settleSession", "releaseResumeLock"})
  void aWorkerDyingAfterTheSettleCommittedTakesItBackAndRestoresTheSession(String localStep) throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    String snapshotBefore = harness.snapshotJson("s1");
    harness.gitHubBacked("s1", "github_app");
    ResumeFailure failure = awaitFailure(resumeReplacingTheWorkerAfter(localStep));
    RecordedHistories.recordIfAsked(harness.history("s1"), "one-upsert-resume-agent-lost-after-" + localStep);

    assertThat(failure.step()).isEqualTo(ResumeStep.SETTLE_SESSION);
    assertThat(failure.failureType()).isEqualTo("AGENT_LOST");
    assertThat(failure.sessionState()).isEqualTo(FAILED);
    assertThat(failure.recoveryActions()).containsExactly(ResumeMode.RESUME, ResumeMode.START_FRESH);
    assertThat(harness.activityWorkers("s1")).contains("SettleSession@worker-b (local)");
    assertThat(harness.transitions("s1")).endsWith("WAITING_FOR_INPUT>FAILED", "FAILED>STARTING",
        "STARTING>WAITING_FOR_INPUT", "WAITING_FOR_INPUT>STARTING", "STARTING>FAILED");
    assertThat(harness.state("s1")).isEqualTo(FAILED);
    assertThat(harness.snapshotJson("s1")).isEqualTo(snapshotBefore);
    assertThat(harness.liveLeases("s1")).isZero();
    assertThat(harness.lockHeld("s1")).isFalse();
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));

    ResumeResult next = harness.resume("s1", ResumeMode.RESUME);
    assertThat(next.loaded()).isTrue();
    assertThat(next.providerSessionId()).isEqualTo(token);
  }

  /**
   * Starts a resume of s1 whose first worker hangs right after {@code localStep} committed, and
   * replaces that worker by worker-b then.
   */
  private ResumeHandle resumeReplacingTheWorkerAfter(String localStep) throws Exception {
    CountDownLatch dying = new CountDownLatch(1);
    hooks.after(localStep, once(() -> {
      dying.countDown();
      hangUntilKilled();
    }));
    ResumeHandle resume = harness.start("s1", ResumeMode.RESUME);
    assertThat(dying.await(1, TimeUnit.MINUTES)).as("the first worker ran " + localStep).isTrue();
    harness.replaceWorker("worker-b");
    return resume;
  }

  @Test
  void aWorkerDyingDuringLaunchLeavesTheSessionRestoredWithItsTokenAndNoAgent() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    String snapshotBefore = harness.snapshotJson("s1");
    harness.gitHubBacked("s1", "github_app");
    harness.agentMode("hold-initialize");
    ResumeHandle resume = harness.start("s1", ResumeMode.RESUME);
    Await.until(() -> agentStarting("s1"), Duration.ofMinutes(1), "the first worker to start the agent");
    long firstAgent = db.tx(h -> executors.find(h, "s1")).orElseThrow().pid();

    harness.replaceWorker("worker-b");
    harness.agentMode("normal"); // the dead worker's agent may now finish its handshake: nobody wants it
    ResumeFailure failure = awaitFailure(resume);
    RecordedHistories.recordIfAsked(harness.history("s1"), "one-upsert-resume-worker-died-during-launch");

    // The launch is never retried by itself (its heartbeat stopped with the worker): the session
    // is back where it was, and the user's next Resume loads the same provider session.
    LostLaunch.assertFailedOnItsHeartbeat(failure);
    assertThat(harness.state("s1")).isEqualTo(FAILED);
    assertThat(harness.transitions("s1")).endsWith("FAILED>STARTING", "STARTING>FAILED");
    assertThat(harness.snapshotJson("s1")).isEqualTo(snapshotBefore);
    assertThat(harness.liveLeases("s1")).isZero();
    assertThat(harness.lockHeld("s1")).isFalse();
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    Await.until(() -> ProcessHandle.of(firstAgent).map(p -> !p.isAlive()).orElse(true), Duration.ofSeconds(30),
        "the dead worker's agent to be gone");

    ResumeResult next = harness.resume("s1", ResumeMode.RESUME);
    assertThat(next.loaded()).isTrue();
    assertThat(next.providerSessionId()).isEqualTo(token);
  }

  private boolean agentStarting(String sessionId) {
    return db.tx(h -> executors.find(h, sessionId)).map(e -> e.status().equals("starting")).orElse(false);
  }

  private static ResumeFailure awaitFailure(ResumeHandle resume) throws Exception {
    try {
      ResumeResult unexpected = resume.await(Duration.ofMinutes(2));
      throw new AssertionError("the resume succeeded: " + unexpected);
    } catch (ResumeFailedException e) {
      return e.failure();
    }
  }

  /** Runs {@code hook} the first time only: the replacement worker's attempt passes through. */
  private static Runnable once(Runnable hook) {
    AtomicBoolean ran = new AtomicBoolean();
    return () -> {
      if (ran.compareAndSet(false, true)) {
        hook.run();
      }
    };
  }

  /** The activity thread of a worker that is about to die: it ends only when the worker is killed. */
  private static void hangUntilKilled() {
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("the worker was killed", e);
    }
  }
}
