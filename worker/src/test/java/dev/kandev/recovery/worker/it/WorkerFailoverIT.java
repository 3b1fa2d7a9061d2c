package dev.kandev.recovery.worker.it;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.LostLaunch;
import dev.kandev.recovery.worker.interceptors.StepFreezeInterceptor;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Workers as processes on a real Temporal server, with the SDK's default worker options: {@code dev}
 * and two {@code worker} processes; the one that runs a resume's step is killed with SIGKILL, and
 * another one carries the resume on within the heartbeat, sticky-queue and activity timeouts.
 */
public class WorkerFailoverIT {
  private static final String QUEUE = "lease-failover";
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @BeforeEach
  void setUp() {
    cluster.dev("dev-a");
    cluster.worker("worker-b");
  }

  @Test
  void theWorkerRunningTheLaunchIsKilledAndAnotherRestoresTheSessionWithItsToken() throws Exception {
    cluster.worker("worker-c");
    HeldLaunch held = HeldLaunch.start(cluster, "s1");
    String token = held.token();
    String launcher = held.agent().workerInstance();

    cluster.kill(launcher);
    cluster.agentMode("normal");
    ResumeFailure failure = RecoveryCluster.awaitFailure(held.resume(), Duration.ofMinutes(2));

    LostLaunch.assertFailedOnItsHeartbeat(failure);
    assertThat(cluster.state("s1")).isEqualTo(FAILED);
    assertThat(cluster.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(cluster.lockHeld("s1")).isFalse();

    // The compensation withdrew the killed worker's launch: its row claims no process, so the user's
    // Resume runs at once, without waiting for the killed worker to count as gone.
    assertThat(TestStores.claimsLiveProcess(cluster.executor("s1").orElseThrow())).isFalse();
    assertThat(cluster.executor("s1").orElseThrow().errorMessage()).contains("launch withdrawn");
    ResumeResult next = cluster.start("s1", ResumeMode.RESUME).await(Duration.ofMinutes(2));
    assertThat(next.loaded()).isTrue();
    assertThat(next.providerSessionId()).isEqualTo(token);
    assertThat(cluster.executor("s1").orElseThrow().workerInstance()).isNotEqualTo(launcher);
  }

  /**
   * The lease runs as a local activity in the workflow task after STARTING: the worker running it is
   * killed after the lease committed, before its workflow task completed. A new worker runs that
   * task again, gets the lease issued before (one lease for the attempt) and the resume settles.
   * On a queue of its own, so that only the worker that freezes there takes the resume's tasks.
   */
  @Test
  void aWorkerKilledAfterTheLeaseIsReplacedByANewOneThatReusesTheLeaseAndTheResumeSettles() throws Exception {
    String token = cluster.failedSessionWithToken("s1");
    cluster.gitHubBacked("s1", "github_app");
    Path freezeFile = cluster.dir().resolve("freeze-steps");
    Files.writeString(freezeFile, "s1 IssueCredentialLeaseForAttempt after\n");
    cluster.setting("KANDEV_TASK_QUEUE", QUEUE);
    KandevProcess leaser = cluster.worker("worker-c",
        Map.of("JAVA_TOOL_OPTIONS", "-D" + StepFreezeInterceptor.PROPERTY + "=" + freezeFile));
    ResumeHandle resume = new ResumeClient(cluster.client(), QUEUE)
        .start(new ResumeRequest("s1", ResumeMode.RESUME, "user", "it"));
    Await.until(() -> leaser.output().contains("FROZEN s1 IssueCredentialLeaseForAttempt after"), Duration.ofMinutes(1),
        "worker-c to issue the lease and freeze");
    assertThat(cluster.state("s1")).isEqualTo(STARTING);
    String leaseId = cluster.fixtures.string("SELECT id FROM credential_leases WHERE session_id = 's1'");

    cluster.kill("worker-c");
    cluster.worker("worker-new");
    ResumeResult result = resume.await(Duration.ofMinutes(3));

    assertThat(result.finalState()).isEqualTo(WAITING_FOR_INPUT);
    assertThat(result.loaded()).isTrue();
    assertThat(result.providerSessionId()).isEqualTo(token);
    assertThat(cluster.executor("s1").orElseThrow().workerInstance()).isEqualTo("worker-new");
    assertThat(cluster.fixtures.strings("SELECT id FROM credential_leases WHERE session_id = 's1'"))
        .as("the step ran twice, the lease was issued once").containsExactly(leaseId);
    assertThat(cluster.transitions("s1")).endsWith("FAILED>STARTING", "STARTING>WAITING_FOR_INPUT");
    assertThat(cluster.lockHeld("s1")).isFalse();
  }
}
