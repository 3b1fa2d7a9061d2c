package dev.kandev.recovery.worker.it;

import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.interceptors.StepFreezeInterceptor;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 43, with real processes: a worker is stopped (SIGSTOP) while it holds a resume's workflow
 * task at one of its local steps — before the lock, the snapshot, the settle, the release — the task
 * times out, another worker completes the run, and then the first worker goes on (SIGCONT) with its
 * stale copy of the task. Its steps run against a run that has ended: none of them may leave a lock,
 * a lease, a transition or an agent behind, and the next resume of the session runs at once.
 *
 * <p>The four sessions run at once on a queue of their own, so only the worker that freezes takes
 * their first tasks; the second worker starts only once the first one is stopped.
 */
public class StaleWorkflowTaskIT {
  private static final String QUEUE = "stale-tasks";
  /** Each session's resume is held, by the first worker, right before this step. */
  private static final Map<String, String> FROZEN_BEFORE = new LinkedHashMap<>(Map.of(
      "s-lock", "AcquireResumeLock",
      "s-snapshot", "PersistCredentialSnapshot",
      "s-settle", "SettleSession",
      "s-release", "ReleaseResumeLock"));

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void aWorkerBackFromAStallLeavesNothingBehindForRunsThatEndedMeanwhile() throws Exception {
    cluster.dev("dev");
    Map<String, String> tokens = new LinkedHashMap<>();
    for (String session : FROZEN_BEFORE.keySet()) {
      tokens.put(session, cluster.failedSessionWithToken(session));
    }
    cluster.gitHubBacked("s-lock", "github_app"); // acme/widgets for s-lock's task, the workspace's GitHub App policy
    FROZEN_BEFORE.keySet().stream().skip(1).forEach(
        session -> cluster.credentials.link(RecoveryCluster.taskOf(session), "repo-widgets", 0));
    Path freezeFile = cluster.dir().resolve("freeze-steps");
    StringBuilder points = new StringBuilder();
    FROZEN_BEFORE.forEach((session, step) -> points.append(session).append(' ').append(step).append(" before\n"));
    Files.writeString(freezeFile, points);
    cluster.setting("KANDEV_TASK_QUEUE", QUEUE);
    KandevProcess stalled = cluster.worker("worker-stalled",
        Map.of("JAVA_TOOL_OPTIONS", "-D" + StepFreezeInterceptor.PROPERTY + "=" + freezeFile));
    ResumeClient onQueue = new ResumeClient(cluster.client(), QUEUE);
    Map<String, ResumeHandle> resumes = new LinkedHashMap<>();
    for (String session : FROZEN_BEFORE.keySet()) {
      resumes.put(session, onQueue.start(new ResumeRequest(session, ResumeMode.RESUME, "user", "it")));
    }
    FROZEN_BEFORE.forEach((session, step) -> stalled.awaitOutput("FROZEN " + session + " " + step + " before",
        Duration.ofMinutes(2)));

    stalled.signal("STOP");
    Path none = freezeFile.resolveSibling("freeze-steps.next");
    Files.writeString(none, "");
    Files.move(none, freezeFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    cluster.worker("worker-b");
    Map<String, ResumeResult> results = new LinkedHashMap<>();
    for (var resume : resumes.entrySet()) {
      results.put(resume.getKey(), resume.getValue().await(Duration.ofMinutes(3)));
    }
    Map<String, List<String>> transitionsAtTheEnd = new LinkedHashMap<>();
    FROZEN_BEFORE.keySet().forEach(session -> transitionsAtTheEnd.put(session, cluster.transitions(session)));
    Map<String, List<String>> leasesAtTheEnd = new LinkedHashMap<>();
    FROZEN_BEFORE.keySet().forEach(session -> leasesAtTheEnd.put(session, liveLeases(session)));

    stalled.signal("CONT");
    // The stale task goes on from its frozen step; each step's end is printed. The settle is followed by
    // the (local) release, the other steps fail and leave only commands the server refuses.
    FROZEN_BEFORE.forEach((session, step) -> stalled.awaitOutput("THAWED " + session + " " + step + " before",
        Duration.ofMinutes(1)));
    stalled.awaitOutput("RAN s-lock AcquireResumeLock failed RESUME_LOCK_LOST", Duration.ofMinutes(1));
    stalled.awaitOutput("RAN s-snapshot PersistCredentialSnapshot failed", Duration.ofMinutes(1));
    stalled.awaitOutput("RAN s-release ReleaseResumeLock ok", Duration.ofMinutes(1));
    stalled.awaitOutput("RAN s-settle ReleaseResumeLock ok", Duration.ofMinutes(1));

    SoftAssertions soft = new SoftAssertions();
    for (String session : FROZEN_BEFORE.keySet()) {
      ResumeResult result = results.get(session);
      soft.assertThat(result.outcome()).as(session).isEqualTo(ResumeOutcome.RESUMED);
      soft.assertThat(result.providerSessionId()).as(session).isEqualTo(tokens.get(session));
      soft.assertThat(cluster.lockHeld(session)).as(session + ": no lock left").isFalse();
      soft.assertThat(cluster.state(session)).as(session).isEqualTo(WAITING_FOR_INPUT);
      soft.assertThat(cluster.transitions(session)).as(session + ": no transition since the run ended")
          .isEqualTo(transitionsAtTheEnd.get(session));
      soft.assertThat(liveLeases(session)).as(session + ": the settled resume's lease, no other")
          .isEqualTo(leasesAtTheEnd.get(session)).hasSize(1);
      soft.assertThat(cluster.executor(session).filter(TestStores::claimsLiveProcess)).as(session + ": its agent runs")
          .isPresent();
    }
    soft.assertAll();
    assertThat(stalled.output()).as("the first worker's stale tasks are refused, no resume step of theirs applied")
        .doesNotContain("RAN s-lock ReadResumeContext");

    // The next resume of each session runs at once once its agent is gone: no lock of an ended run in the way.
    for (String session : FROZEN_BEFORE.keySet()) {
      long pid = cluster.executor(session).orElseThrow().pid();
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      Await.until(() -> cluster.executor(session).map(e -> !TestStores.claimsLiveProcess(e)).orElse(false),
          Duration.ofSeconds(60), "the exit of the agent of " + session + " to be recorded");
      ResumeResult next = cluster.start(session, ResumeMode.RESUME).await(Duration.ofMinutes(1));
      assertThat(next.outcome()).as(session).isEqualTo(ResumeOutcome.RESUMED);
    }
  }

  private List<String> liveLeases(String session) {
    return cluster.fixtures.strings(
        "SELECT id FROM credential_leases WHERE session_id = ? AND revoked_at IS NULL ORDER BY id", session);
  }
}
