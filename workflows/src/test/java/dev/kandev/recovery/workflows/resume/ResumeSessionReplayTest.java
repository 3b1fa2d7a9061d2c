package dev.kandev.recovery.workflows.resume;

import static org.assertj.core.api.Assertions.assertThat;

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
 * Replays the histories the worker's resume tests recorded (README "Replay histories") against
 * today's workflow code: a change that would break running resumes fails here, and then needs a
 * {@code Workflow.getVersion} branch or a deliberate re-recording.
 */
class ResumeSessionReplayTest {
  private TestWorkflowEnvironment env;
  private Worker worker;

  /** A worker as production builds it: the contract's data converter. */
  @BeforeEach
  void worker() {
    env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(RecoveryDataConverter.INSTANCE).build())
        .build());
    worker = env.newWorker("replay");
    worker.registerWorkflowImplementationTypes(ResumeSessionWorkflowImpl.class);
  }

  @AfterEach
  void close() {
    env.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {
    "resume-success-github", "resume-launch-failure-compensated", "resume-credential-rejected", "resume-start-fresh",
    "resume-worker-died-after-starting", "resume-worker-died-during-launch",
    "real-server-resume-worker-died-after-starting", "real-server-resume-worker-died-during-launch",
    "real-server-resume-dev-killed-during-launch", "real-server-resume-on-host", "real-server-resume-host-unavailable",
    // Since "local-store-steps": the lock and session steps as local activities.
    "local-steps-resume-success-github", "local-steps-resume-launch-failure-compensated",
    "local-steps-resume-credential-rejected", "local-steps-resume-start-fresh",
    "local-steps-resume-worker-died-after-starting", "local-steps-resume-worker-died-during-launch",
    "local-steps-resume-worker-died-after-settleSession", "local-steps-resume-worker-died-after-releaseResumeLock",
    "local-steps-resume-dev-killed-during-launch", "local-steps-resume-on-host", "local-steps-resume-host-unavailable"
  })
  void recordedHistoryReplaysDeterministically(String name) throws Exception {
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(resource("/histories/" + name + ".json"));
    assertThat(history.getEvents()).isNotEmpty();

    WorkflowReplayer.replayWorkflowExecution(history, worker);
  }

  private static String resource(String path) throws IOException {
    try (InputStream in = ResumeSessionReplayTest.class.getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
