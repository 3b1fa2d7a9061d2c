package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.model.SessionState;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A resume a worker took but whose launch no worker of the session's host takes: the packaged CLI
 * says which launch queue nobody polls, ends at its --timeout, and {@code resume --cancel} cancels the
 * run, which restores the session before it ends.
 */
public class ResumeCancelIT {
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  private KandevProcess.Result cli(String... args) {
    return KandevProcess.run(cluster.cliEnvironment(), cluster.logDir(), Duration.ofMinutes(2), args);
  }

  @Test
  void aLaunchNoWorkerOfTheHostTakesIsNamedAndResumeCancelRestoresTheSession() {
    cluster.dev("dev"); // its worker is of host it-host
    cluster.newSession("s-far", SessionState.CREATED);
    cluster.bindHost("s-far", "far-host");

    KandevProcess.Result resume = cli("resume", "s-far", "--fresh", "--timeout=20s");

    assertThat(resume.exitCode()).as(resume.output()).isEqualTo(ExitCodes.TIMED_OUT);
    assertThat(resume.output().lines()
        .filter(l -> l.startsWith("waiting: no worker polls the session's launch queue kandev-recovery@far-host/launch")))
        .as(resume.output()).singleElement().asString().contains("KANDEV_HOST=far-host");
    assertThat(resume.output()).contains("outcome: none within 20s — the resume runs on")
        .doesNotContain("no worker polls task queue");

    KandevProcess.Result cancel = cli("resume", "s-far", "--cancel");

    assertThat(cancel.exitCode()).as(cancel.output()).isEqualTo(ExitCodes.OK);
    assertThat(cancel.output()).startsWith("cancelling resume-session-s-far (run ")
        .contains("outcome: CANCELLED — the resume of session s-far undid what it had done and ended");
    assertThat(cluster.state("s-far")).isEqualTo(SessionState.CREATED);
    assertThat(cluster.lockHeld("s-far")).isFalse();
  }
}
