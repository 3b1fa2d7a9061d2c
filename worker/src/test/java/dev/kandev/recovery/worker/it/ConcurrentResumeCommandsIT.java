package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Many users (or retries) resuming one session at once through the CLI, on a real server, on a busy machine. */
public class ConcurrentResumeCommandsIT {
  private static final int COMMANDS = 20;
  private static final Pattern ATTACHED = Pattern.compile("resuming resume-session-s1 \\(run ([0-9a-f-]{36})\\)");

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  /** A Temporal server (under the cluster's folder: the cluster stops it after its processes) and one worker. */
  @BeforeEach
  void setUp() {
    DevTemporalServer.start(RealTemporalServer.cli(), cluster.dir().resolve("temporal"), cluster.temporalPort, cluster.uiPort);
    cluster.worker("worker-a");
  }

  @Test
  void twentySimultaneousResumeCommandsAllPrintTheOutcomeOfTheOneResumeTheyShare() throws Exception {
    String token = cluster.failedSessionWithToken("s1");
    cluster.agentMode("hold-initialize");

    List<KandevProcess> commands = new ArrayList<>();
    for (int i = 0; i < COMMANDS; i++) {
      commands.add(KandevProcess.start("resume-" + i, cluster.cliEnvironment(), cluster.logDir(), "resume", "s1"));
    }
    try {
      // The agent holds its handshake until every command has attached to the run.
      for (KandevProcess command : commands) {
        command.awaitOutput("resuming resume-session-s1 (run ", Duration.ofMinutes(3));
      }
      cluster.agentMode("normal");

      List<String> runs = new ArrayList<>();
      for (KandevProcess command : commands) {
        assertThat(command.awaitExit(Duration.ofMinutes(3))).as(command.output()).isEqualTo(ExitCodes.OK);
        assertThat(command.output()).as(command.name())
            .contains("outcome: RESUMED — session s1 is WAITING_FOR_INPUT, provider session " + token + " (loaded)")
            .doesNotContain("DEADLINE_EXCEEDED", "Exception");
        Matcher run = ATTACHED.matcher(command.output());
        assertThat(run.find()).isTrue();
        runs.add(run.group(1));
      }
      assertThat(runs).as("one resume for all").containsOnly(runs.get(0));
    } finally {
      commands.forEach(KandevProcess::close);
    }
  }
}
