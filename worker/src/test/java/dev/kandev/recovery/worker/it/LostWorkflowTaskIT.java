package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.interceptors.StepFreezeInterceptor;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Finding 15 of docs/reliability.md, with real processes: an attempt of a resume's workflow task
 * that the history never keeps ran the local steps further than the attempt it keeps. The first
 * worker moves the session to STARTING, issues a lease and persists its snapshot, and is killed
 * before its task completes; the second worker's attempt reads the session (its own STARTING) and,
 * as it is about to move it to STARTING, Kandev's user cancels it. That attempt fails at
 * MARK_STARTING, and its history has no lease or snapshot step to compensate: the undo by the
 * lock's fence revokes the lost attempt's lease and puts the snapshot of before back.
 */
public class LostWorkflowTaskIT {
  private static final String QUEUE = "lost-tasks";
  private static final String SESSION = "s-lost";

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void whatALostAttemptWroteIsUndoneWhenTheKeptAttemptFailsBeforeThoseSteps() throws Exception {
    cluster.dev("dev");
    cluster.failedSessionWithToken(SESSION);
    cluster.gitHubBacked(SESSION, "github_app");
    String snapshotBefore = snapshot();
    long leasesBefore = liveLeases();
    cluster.setting("KANDEV_TASK_QUEUE", QUEUE);

    Path lostSteps = freezeFile("lost-steps", SESSION + " PersistCredentialSnapshot after");
    KandevProcess lost = cluster.worker("worker-lost",
        Map.of("JAVA_TOOL_OPTIONS", "-D" + StepFreezeInterceptor.PROPERTY + "=" + lostSteps));
    ResumeHandle resume = new ResumeClient(cluster.client(), QUEUE)
        .start(new ResumeRequest(SESSION, ResumeMode.RESUME, "user", "it"));
    lost.awaitOutput("FROZEN " + SESSION + " PersistCredentialSnapshot after", Duration.ofMinutes(2));
    assertThat(cluster.state(SESSION)).isEqualTo(SessionState.STARTING);
    assertThat(liveLeases()).as("the lost attempt's lease").isEqualTo(leasesBefore + 1);
    assertThat(snapshot()).as("the lost attempt's snapshot").isNotEqualTo(snapshotBefore);
    lost.kill(); // its workflow task never completes: the history will not show these steps

    Path keptSteps = freezeFile("kept-steps", SESSION + " MarkStarting before");
    KandevProcess kept = cluster.worker("worker-kept",
        Map.of("JAVA_TOOL_OPTIONS", "-D" + StepFreezeInterceptor.PROPERTY + "=" + keptSteps));
    kept.awaitOutput("FROZEN " + SESSION + " MarkStarting before", Duration.ofMinutes(2));
    // Kandev's user cancels the STARTING session, between the kept attempt's read and its transition.
    cluster.fixtures.exec("UPDATE task_sessions SET state = 'CANCELLED' WHERE id = ? AND state = 'STARTING'", SESSION);
    assertThat(cluster.state(SESSION)).isEqualTo(SessionState.CANCELLED);
    replace(keptSteps, "");

    ResumeFailure failure = RecoveryCluster.awaitFailure(resume, Duration.ofMinutes(2));
    assertThat(failure.step()).isEqualTo(ResumeStep.MARK_STARTING);
    assertThat(failure.failureType()).isEqualTo(FailureType.SESSION_STATE_SUPERSEDED.type());
    assertThat(cluster.state(SESSION)).as("the user's cancel stands").isEqualTo(SessionState.CANCELLED);
    assertThat(liveLeases()).as("the lost attempt's lease revoked").isEqualTo(leasesBefore);
    assertThat(snapshot()).as("the snapshot of before, byte for byte").isEqualTo(snapshotBefore);
    assertThat(cluster.lockHeld(SESSION)).isFalse();
  }

  private Path freezeFile(String name, String point) throws Exception {
    Path file = cluster.dir().resolve(name);
    Files.writeString(file, point + "\n");
    return file;
  }

  /** Replaces the file whole, by a rename, so the frozen worker never reads half of it. */
  private static void replace(Path file, String content) throws Exception {
    Path next = file.resolveSibling(file.getFileName() + ".next");
    Files.writeString(next, content);
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private String snapshot() {
    return cluster.fixtures.string(
        "SELECT COALESCE((metadata -> 'git_credential_snapshot')::text, 'none') FROM task_sessions WHERE id = ?", SESSION);
  }

  private long liveLeases() {
    return cluster.fixtures.count(
        "SELECT count(*) FROM credential_leases WHERE session_id = ? AND revoked_at IS NULL", SESSION);
  }
}
