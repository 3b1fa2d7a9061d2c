package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.client.RuntimeUpdateClient;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateResult;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Temporal server without Kandev's search attributes (a bare server, a new Temporal Cloud
 * namespace): the worker refuses to start in one line naming them and the command that creates
 * them; a start request never needs them; {@code KANDEV_REGISTER_SEARCH_ATTRIBUTES=true} creates them.
 */
public class BareTemporalServerIT {
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void theWorkerNamesTheMissingSearchAttributesAndStartsNeedNone() throws Exception {
    try (RealTemporalServer.Flagged server = RealTemporalServer.startBare(cluster.dir().resolve("bare"), cluster.temporalPort)) {
      Map<String, String> env = new HashMap<>(cluster.environment("bare-worker"));
      env.put("TEMPORAL_ADDRESS", server.address());

      KandevProcess.Result refused = KandevProcess.run(env, cluster.logDir(), Duration.ofSeconds(60), "worker");

      assertThat(refused.exitCode()).as(refused.output()).isEqualTo(ExitCodes.USAGE);
      assertThat(refused.output().strip().lines()).as(refused.output()).singleElement().asString()
          .startsWith("kandev-recovery worker: the Temporal namespace default lacks the search attributes "
              + String.join(", ", RecoverySearchAttributes.ALL.stream().map(key -> key.getName()).toList()))
          .contains("temporal operator search-attribute create --namespace default --name KandevSessionId",
              "KANDEV_REGISTER_SEARCH_ATTRIBUTES=true");

      // Starts on the bare server: neither client sets a search attribute.
      cluster.newSession("s-1", SessionState.CREATED);
      ResumeHandle resume = cluster.start("s-1", ResumeMode.START_FRESH);
      RuntimeUpdateClient.Job update = new RuntimeUpdateClient(cluster.client(), "kandev-recovery").start("not-an-agent", "it");

      env.put("KANDEV_REGISTER_SEARCH_ATTRIBUTES", "true");
      cluster.started("bare-worker", KandevProcess.start("bare-worker", env, cluster.logDir(), "worker"));

      assertThat(resume.await(Duration.ofMinutes(2)).outcome()).isEqualTo(ResumeOutcome.STARTED_FRESH);
      RuntimeUpdateResult failed = update.await(Duration.ofMinutes(1));
      assertThat(failed.errorType()).isEqualTo("RUNTIME_UNKNOWN_AGENT");
    }
  }
}
