package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestAgentNpmWorld;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.RuntimeUpdateHarness;
import dev.kandev.recovery.worker.harness.WebUi;
import dev.kandev.recovery.workflows.client.RuntimeUpdateClient;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateStatus;
import dev.kandev.recovery.workflows.runtime.TestAgents;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runtime update whose extracted tree is corrupt, read in the Web UI of a real Temporal server:
 * the update, the targeted repair, the one retry and the ACP probe, in that order, and the result.
 */
public class RuntimeUpdateWebUiIT {
  private static final String SPEC = TestAgents.TEST_AGENT.packageSpec();


  @RegisterExtension static final TestAgentNpmWorld world = new TestAgentNpmWorld();
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final RuntimeUpdateHarness harness = RuntimeUpdateHarness.onRealServer(db, world);
  @TempDir Path dir;
  private WebUi ui;

  @BeforeEach
  void openBrowser() {
    ui = new WebUi(harness.webUi(), Path.of("target", "webui-screenshots"), dir.resolve("chromium"));
  }

  @AfterEach
  void closeBrowser() throws Exception {
    ui.close();
  }

  @Test
  void anOperatorSeesTheUpdateTheRepairTheRetryAndTheProbe() throws Exception {
    world.installThroughNpx();
    harness.corrupt(SPEC);
    RuntimeUpdateClient.Job job = harness.updates()
        .start(TestAgents.TEST_AGENT.agentId(), "user:alice");
    assertThat(job.await(Duration.ofSeconds(90)).status()).isEqualTo(RuntimeUpdateStatus.SUCCEEDED);

    ui.workflows("KandevAgentId = \"" + TestAgents.TEST_AGENT.agentId() + "\"")
        .awaitText(t -> t.contains("1 Workflows") || t.contains("1 Workflow "), "the runtime update by KandevAgentId");
    ui.workflow(job.workflowId(), job.runId(), "history").awaitText("Workflow Execution Completed");
    // The event list names each step by its activity summary; the result panel shows the outcome.
    assertThat(ui.text()).contains("\"status\": \"SUCCEEDED\"", "Summary update kandev-test-agent",
        "Summary repair _npx tree of kandev-test-agent", "Summary retry update kandev-test-agent after repair",
        "Summary ACP initialize probe of kandev-test-agent");
    assertThat(ui.steps()).filteredOn(type -> !type.equals("RuntimeSaveJob"))
        .containsExactly("RuntimeRunUpdate", "RuntimeRepairExecutionCache", "RuntimeRunUpdate", "RuntimeProbeAcp");
    ui.screenshot("runtime-update-history");
  }
}
