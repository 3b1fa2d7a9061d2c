package dev.kandev.recovery.worker.it;

import static dev.kandev.recovery.workflows.model.SessionState.CREATED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code kandev-recovery resumes}: visibility queries on the resumes' search attributes, on the real server. */
public class ResumesCommandIT {
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @BeforeEach
  void setUp() {
    cluster.dev("dev-a");
  }

  @Test
  void listsResumesBySessionTaskOutcomeAndRunning() throws Exception {
    // s1: started fresh, a Resume refused while its agent runs, and a Resume after its agent failed.
    cluster.newSession("s1", CREATED);
    cluster.start("s1", ResumeMode.START_FRESH).await(Duration.ofMinutes(1));
    RecoveryCluster.awaitFailure(cluster.start("s1", ResumeMode.RESUME), Duration.ofMinutes(1));
    cluster.tx(h -> cluster.sessions().transition(h, "s1", Set.of(SessionState.WAITING_FOR_INPUT), SessionState.FAILED, "test", "agent exited",
        Fence.none()));
    Await.until(() -> !TestStores.claimsLiveProcess(cluster.executor("s1").orElseThrow()), Duration.ofSeconds(30), "s1's agent to stop");
    cluster.start("s1", ResumeMode.RESUME).await(Duration.ofMinutes(1));
    // s2: an agent that exits before initialize; s3: an agent held in initialize, so its resume runs.
    cluster.newSession("s2", CREATED);
    cluster.agentMode("exit-before-initialize");
    RecoveryCluster.awaitFailure(cluster.start("s2", ResumeMode.START_FRESH), Duration.ofMinutes(1));
    cluster.newSession("s3", CREATED);
    cluster.agentMode("hold-initialize");
    ResumeHandle running = cluster.start("s3", ResumeMode.START_FRESH);
    cluster.awaitAgentStarting("s3");

    List<String> s1 = rows(3, "resumes", "--session", "s1");
    assertThat(s1.get(0)).contains("COMPLETED", "RESUMED", "DONE");
    assertThat(s1.get(1)).contains("FAILED", "READ_CONTEXT").doesNotContain("REJECTED");
    assertThat(s1.get(2)).contains("COMPLETED", "STARTED_FRESH", "DONE");
    assertThat(rows(2, "resumes", "--task", "t-s1")).allSatisfy(row -> assertThat(row).doesNotContain("FAILED"));
    // One name per outcome: the resume refused before it read s1 is FAILED too.
    List<String> failed = rows(2, "resumes", "--outcome", "FAILED");
    assertThat(failed.get(0)).contains("resume-session-s2", "LAUNCH_AGENT");
    assertThat(failed.get(1)).contains("resume-session-s1", "READ_CONTEXT");
    List<String> stillRunning = rows(1, "resumes", "--running");
    assertThat(stillRunning.get(0)).contains("resume-session-s3", running.runId(), "RUNNING", "LAUNCH_AGENT");
    // By its session while it runs (its search attributes are set as it ends): the session filter is its workflow id.
    assertThat(rows(1, "resumes", "--session", "s3", "--running").get(0)).contains(running.runId(), "RUNNING");

    KandevProcess.Result refused = KandevProcess.run(cluster.cliEnvironment(), cluster.logDir(), Duration.ofMinutes(1),
        "resumes", "--session", "s1' OR 'x' = 'x");
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.output()).contains("resumes: the session filter", "has a quote");
    cluster.agentMode("normal");
  }

  /** The rows the command prints, newest first, once Temporal's visibility store shows {@code expected} of them, ended. */
  private List<String> rows(int expected, String... args) {
    List<String> rows = new ArrayList<>();
    Await.until(() -> {
      KandevProcess.Result result = KandevProcess.run(cluster.cliEnvironment(), cluster.logDir(), Duration.ofMinutes(1), args);
      assertThat(result.exitCode()).as(result.output()).isZero();
      List<String> lines = result.output().lines().toList();
      int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("WORKFLOW ID")).findFirst().orElseThrow());
      rows.clear();
      rows.addAll(lines.subList(header + 1, lines.size() - 1));
      assertThat(lines.get(lines.size() - 1)).isEqualTo(rows.size() + " resume(s)");
      // Visibility may show an ended run's outcome before its close: wait for the close too.
      boolean settled = List.of(args).contains("--running") || rows.stream().noneMatch(row -> row.contains(" RUNNING "));
      return rows.size() == expected && settled;
    }, Duration.ofMinutes(1), expected + " rows from resumes " + String.join(" ", args));
    return rows;
  }
}
