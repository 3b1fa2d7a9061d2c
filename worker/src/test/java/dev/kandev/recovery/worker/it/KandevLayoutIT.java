package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.testing.KandevCatalog;
import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.model.SessionState;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The packaged jar on Kandev's own tables (KANDEV_STORE_LAYOUT=kandev, a fixture of Kandev's
 * schema): {@code dev} and the {@code resume} CLI resume a failed session with its token kept,
 * Kandev's catalog stays as it was, and Kandev's tables without a column we use stop the worker in
 * one line with exit code 9.
 */
public class KandevLayoutIT {
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster(StoreLayout.Kind.KANDEV);

  private KandevProcess.Result cli(String... args) {
    return KandevProcess.run(cluster.cliEnvironment(), cluster.logDir(), Duration.ofMinutes(2), args);
  }

  private String kandevSchema() {
    return cluster.database().layout().kandevSchema();
  }

  @Test
  void thePackagedWorkerResumesAFailedSessionOnKandevsTablesAndLeavesTheirCatalogAsItWas() throws Exception {
    String catalog = KandevCatalog.of(cluster.fixtures, kandevSchema());
    cluster.dev("dev");
    String token = cluster.failedSessionWithToken("s1");

    KandevProcess.Result resume = cli("resume", "s1", "--timeout=90s");

    assertThat(resume.exitCode()).as(resume.output()).isEqualTo(ExitCodes.OK);
    assertThat(cluster.state("s1")).isEqualTo(SessionState.WAITING_FOR_INPUT);
    assertThat(cluster.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(cluster.fixtures.string("SELECT resume_token FROM executors_running WHERE session_id = 's1'")).isEqualTo(token);
    assertThat(cluster.fixtures.string("SELECT s.state || '/' || t.state FROM task_sessions s JOIN tasks t ON t.id = s.task_id"
        + " WHERE s.id = 's1'")).isEqualTo("WAITING_FOR_INPUT/REVIEW");
    assertThat(cluster.fixtures.string("SELECT pg_typeof(metadata)::text || '/' || (metadata::jsonb -> 'acp' ->> 'session_id')"
        + " FROM task_sessions WHERE id = 's1'")).isEqualTo("text/" + token);
    assertThat(KandevCatalog.of(cluster.fixtures, kandevSchema())).isEqualTo(catalog);
  }

  @Test
  void kandevsTablesWithoutAColumnWeUseStopTheWorkerInOneLineWithExitCode9AndChangeNothing() {
    cluster.fixtures.exec("ALTER TABLE executors_running DROP COLUMN resume_token");
    String catalog = KandevCatalog.of(cluster.fixtures, kandevSchema());

    KandevProcess dev = KandevProcess.start("dev-refused", cluster.environment("dev-refused"), cluster.logDir(),
        "dev", "--temporal-port", Integer.toString(cluster.temporalPort), "--ui-port", Integer.toString(cluster.uiPort));
    int exit = dev.awaitExit(Duration.ofMinutes(2));

    assertThat(exit).as(dev.output()).isEqualTo(ExitCodes.KANDEV_SCHEMA_MISMATCH);
    assertThat(dev.output()).doesNotContain("\tat ", "Exception");
    assertThat(dev.output().lines().filter(line -> line.startsWith("kandev-recovery dev: "))).singleElement()
        .asString().startsWith("kandev-recovery dev: Kandev's table " + kandevSchema()
            + ".executors_running has no column resume_token, expected resume_token text:");
    assertThat(KandevCatalog.of(cluster.fixtures, kandevSchema())).isEqualTo(catalog);
  }
}
