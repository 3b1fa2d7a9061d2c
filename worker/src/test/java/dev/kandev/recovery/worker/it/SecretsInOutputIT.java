package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.FakeSecrets;
import dev.kandev.recovery.worker.harness.FilesAsText;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.testing.HistorySecrets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An agent that writes a fake credential of every shape the redaction knows to its stderr and exits
 * before {@code initialize}, launched by a {@code dev} of the packaged jar through the CLI: its stderr
 * tail reaches the launch's failure, the agent's row and the logs only masked.
 */
public class SecretsInOutputIT {
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void secretsAnAgentWritesToStderrAreInNoHistoryLogDatabaseRowOrCliOutput() throws Exception {
    List<String> secrets = FakeSecrets.values();
    cluster.dev("dev-leak");
    cluster.agentMode("leak-secrets");
    cluster.newSession("s-1", SessionState.CREATED);

    KandevProcess.Result resume = KandevProcess.run(cluster.cliEnvironment(), cluster.logDir(), Duration.ofMinutes(3),
        "resume", "s-1", "--fresh");
    assertThat(resume.exitCode()).as(resume.output()).isNotZero();
    assertThat(resume.output()).contains("AGENT_EXITED_BEFORE_INITIALIZE");

    String history = HistorySecrets.exportJson(cluster.client(), ResumeRequest.workflowId("s-1"));
    assertThat(history).as("the stderr tail is in the failure, masked").contains("***").contains("github token ***");
    HistorySecrets.assertNoSecrets(history, secrets);

    String rows = everyRow();
    assertThat(rows).as("the agent's row keeps its stderr tail, masked")
        .contains("exiting before initialize after leaking secrets").contains("***");

    cluster.process("dev-leak").terminate(Duration.ofMinutes(1));
    List<String> outputs = new ArrayList<>(List.of(resume.output(), history, rows));
    outputs.addAll(FilesAsText.under(cluster.dir()));
    assertThat(outputs).as("CLI output, history, every row of the schema, logs and state files (histories in SQLite)")
        .allSatisfy(output -> assertThat(output).doesNotContain(secrets.toArray(String[]::new)));
  }

  /** Every row of every table of the cluster's schema, as text. */
  private String everyRow() {
    return cluster.tx(h -> {
      StringBuilder all = new StringBuilder();
      for (String table : h.createQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = :schema")
          .bind("schema", cluster.schema()).mapTo(String.class).list()) {
        h.createQuery("SELECT t::text FROM \"" + cluster.schema() + "\".\"" + table + "\" t").mapTo(String.class)
            .forEach(row -> all.append(table).append(": ").append(row).append('\n'));
      }
      return all.toString();
    });
  }
}
