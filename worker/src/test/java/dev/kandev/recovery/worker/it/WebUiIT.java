package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.harness.WebUi;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an operator reads in the Temporal Web UI of {@code dev}, in a real browser: a session's
 * resumes by search attribute, a running resume's step, a finished one's summary and steps in
 * order, a failed one's type, step, recovery actions and compensations. Screenshots land in
 * {@code worker/target/webui-screenshots/}.
 */
public class WebUiIT {
  private static final Path SCREENSHOTS = Path.of("target", "webui-screenshots");

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();
  private WebUi ui;

  @BeforeEach
  void setUp() {
    cluster.dev("dev-a");
    ui = new WebUi("http://127.0.0.1:" + cluster.uiPort, SCREENSHOTS, cluster.dir().resolve("chromium"));
  }

  @AfterEach
  void tearDown() {
    ui.close();
  }

  @Test
  void anOperatorFindsAndReadsResumesInTheWebUi() throws Exception {
    // s1: started fresh, failed, resumed in its own conversation with a GitHub App lease.
    cluster.failedSessionWithToken("s1");
    cluster.gitHubBacked("s1", "github_app");
    ResumeHandle resumed = cluster.start("s1", ResumeMode.RESUME);
    resumed.await(Duration.ofMinutes(1));
    // s2: its agent exits before initialize: the resume fails at LAUNCH_AGENT and compensates.
    cluster.failedSessionWithToken("s2");
    cluster.agentMode("exit-before-initialize");
    ResumeHandle failed = cluster.start("s2", ResumeMode.RESUME);
    RecoveryCluster.awaitFailure(failed, Duration.ofMinutes(1));
    // s3: its agent is held in ACP initialize: the resume runs, in LAUNCH_AGENT.
    cluster.newSession("s3", SessionState.CREATED);
    cluster.agentMode("hold-initialize");
    ResumeHandle running = cluster.start("s3", ResumeMode.START_FRESH);
    cluster.awaitAgentStarting("s3");

    ui.workflows("KandevSessionId = \"s1\"").awaitText(t -> t.contains("2 Workflows") && t.contains("2 COMPLETED"),
        "the two resumes of s1, both completed");
    assertThat(ui.text()).contains(resumed.runId(), "resume-session-s1", "COMPLETED").doesNotContain("resume-session-s2");
    ui.screenshot("list-by-session");

    ui.workflow(resumed.workflowId(), resumed.runId(), "history").awaitText("Workflow Execution Completed");
    assertThat(ui.text()).contains("\"outcome\": \"RESUMED\"", "\"finalState\": \"WAITING_FOR_INPUT\"");
    // The store steps and the lease are local activities: the history shows them as "Local Activity" rows.
    assertThat(ui.steps()).containsExactly("AcquireResumeLock (local)", "ReadResumeContext (local)",
        "MarkStarting (local)", "IssueCredentialLeaseForAttempt (local)", "PersistCredentialSnapshot (local)", "LaunchAgent",
        "SettleSession (local)", "ReleaseResumeLock (local)");
    ui.screenshot("finished-history");
    // The workflow's summary is under the outcome in the Current Details (no memo upsert since "fewer-events").
    ui.workflow(resumed.workflowId(), resumed.runId(), "user-metadata")
        .awaitText("Resume of session s1 (task t-s1, agent test-agent) from FAILED, reason user, requested by it");
    ui.screenshot("finished-current-details");

    ui.workflow(failed.workflowId(), failed.runId(), "history").awaitText("Workflow Execution Failed");
    assertThat(ui.text()).contains("resume failed at LAUNCH_AGENT (AGENT_EXITED_BEFORE_INITIALIZE)",
        "session now FAILED", "recovery actions: RESUME, START_FRESH");
    assertThat(ui.steps()).containsSubsequence("LaunchAgent", "StopAgent", "RestoreCredentialSnapshot",
        "RevokeCredentialLeases", "RestorePriorState", "ReleaseResumeLock");
    ui.screenshot("failed-history");

    ui.workflow(running.workflowId(), running.runId(), "user-metadata").awaitText("LAUNCH_AGENT");
    assertThat(ui.text()).contains("LAUNCH_AGENT session/new");
    ui.screenshot("running-current-details");
    cluster.agentMode("normal");
  }
}
