package dev.kandev.recovery.workflows.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HistorySecretsTest {
  private static final String QUEUE = "history-secrets-test";
  private static TestWorkflowEnvironment env;
  private static WorkflowClient client;

  @WorkflowInterface
  public interface CarryWorkflow {
    @WorkflowMethod
    String carry(String value, boolean fail);
  }

  public static class CarryWorkflowImpl implements CarryWorkflow {
    @Override
    public String carry(String value, boolean fail) {
      Workflow.upsertMemo(Map.of("note", "carried " + value.length() + " chars"));
      if (fail) {
        throw ApplicationFailure.newNonRetryableFailure("failed while holding " + value, "TEST");
      }
      return "lease-1";
    }
  }

  @BeforeAll
  static void start() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(CarryWorkflowImpl.class);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterAll
  static void stop() {
    env.close();
  }

  private void run(String id, String value, boolean fail) {
    CarryWorkflow wf = client.newWorkflowStub(CarryWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId(id).build());
    try {
      wf.carry(value, fail);
    } catch (RuntimeException expectedWhenFailing) {
      assertThat(fail).isTrue();
    }
  }

  @Test
  void passesWhenNoSecretIsInTheHistory() {
    run("clean", "lease-abc", false);

    assertThat(HistorySecrets.exportJson(client, "clean")).contains("WORKFLOW_EXECUTION_COMPLETED");
    HistorySecrets.assertNoSecrets(client, "clean", "ghs_SuperSecretInstallationToken", "tok_9f8e7d6c5b4a");
  }

  @Test
  void findsASecretInABase64PayloadAndInAFailureMessage() {
    run("leaky-input", "ghs_SuperSecretInstallationToken", false);
    run("leaky-failure", "tok_9f8e7d6c5b4a", true);

    assertThat(HistorySecrets.exportJson(client, "leaky-input"))
        .as("payloads are base64 in the export, so a plain search would miss it")
        .doesNotContain("ghs_SuperSecretInstallationToken");
    assertThatThrownBy(() -> HistorySecrets.assertNoSecrets(client, "leaky-input", "ghs_SuperSecretInstallationToken"))
        .isInstanceOf(AssertionError.class).hasMessageContaining("must not contain a secret");
    assertThatThrownBy(() -> HistorySecrets.assertNoSecrets(client, "leaky-failure", "tok_9f8e7d6c5b4a"))
        .isInstanceOf(AssertionError.class);
  }
}
