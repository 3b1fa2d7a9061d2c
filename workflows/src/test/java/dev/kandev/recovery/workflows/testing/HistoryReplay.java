package dev.kandev.recovery.workflows.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Replays recorded histories ({@code /histories/NAME.json} in the test resources) on a worker as
 * production builds it: the contract's data converter, the workflow implementations {@code
 * register} adds.
 */
public final class HistoryReplay implements AutoCloseable {
  private static final long REPLAY_DEADLOCK_MILLIS = 30_000;
  private final TestWorkflowEnvironment env;
  private final Worker worker;

  public HistoryReplay(Consumer<Worker> register) {
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(RecoveryDataConverter.INSTANCE).build())
        .build());
    // A replay checks determinism, not speed: the first one in a JVM runs the workflow code cold
    // (see WarmUpReplays), which on a loaded CI machine can outlast the 1 s deadlock detection.
    worker = env.newWorker("replay", WorkerOptions.newBuilder().setDefaultDeadlockDetectionTimeout(REPLAY_DEADLOCK_MILLIS).build());
    register.accept(worker);
  }

  /** Replays the recorded history {@code name}; throws if today's workflow code does not reproduce it. */
  public void replay(String name) throws Exception {
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(resource("/histories/" + name + ".json"));
    assertThat(history.getEvents()).isNotEmpty();

    WorkflowReplayer.replayWorkflowExecution(history, worker);
  }

  private static String resource(String path) throws IOException {
    try (InputStream in = HistoryReplay.class.getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    env.close();
  }
}
