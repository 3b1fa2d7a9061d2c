package dev.kandev.recovery.workflows.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.HostWait;
import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays histories recorded by the worker's RuntimeUpdateWorkflowTest against today's workflow
 * code: a change that would break running jobs fails here. Re-record with
 * {@code mvn -pl worker -am verify -Dtest='RuntimeUpdateWorkflowTest' -Dkandev.recordHistories=true
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class RuntimeUpdateReplayTest {
  private TestWorkflowEnvironment env;
  private Worker worker;

  @BeforeEach
  void worker() {
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(RecoveryDataConverter.INSTANCE).build())
        .build());
    worker = env.newWorker("replay");
    worker.registerWorkflowImplementationFactory(
        RuntimeUpdateWorkflow.class, () -> new RuntimeUpdateWorkflowImpl(TestAgents.CATALOGUE, HostWait.DEFAULT));
  }

  @AfterEach
  void close() {
    env.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"success-after-repair", "terminal-failure", "by-type-name"})
  void recordedHistoryReplaysDeterministically(String name) throws Exception {
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(resource("/histories/runtime-update-" + name + ".json"));
    assertThat(history.getEvents()).isNotEmpty();

    WorkflowReplayer.replayWorkflowExecution(history, worker);
  }

  private static String resource(String path) throws IOException {
    try (InputStream in = RuntimeUpdateReplayTest.class.getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
