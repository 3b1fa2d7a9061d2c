package dev.kandev.recovery.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflowImpl;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import org.junit.jupiter.api.Test;

/**
 * The warm-up swallows a failed replay (it must never keep a worker from starting), so a bundled
 * history that no longer replays with today's code would silently warm nothing: this fails instead.
 */
class WarmUpReplaysTest {
  @Test
  void everyBundledHistoryReplaysOnAWorkerRegisteredAsProductionDoes() {
    try (TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(RecoveryDataConverter.INSTANCE).build())
        .build())) {
      // Generous: this checks that the histories replay, not how fast a cold JVM does it.
      Worker worker = env.newWorker("warm-up", WorkerOptions.newBuilder().setDefaultDeadlockDetectionTimeout(30_000).build());
      worker.registerWorkflowImplementationFactory(ResumeSessionWorkflow.class, () -> new ResumeSessionWorkflowImpl(HostWaitBounds.DEFAULT));

      assertThat(WarmUpReplays.replayOn(worker)).containsExactlyElementsOf(WarmUpReplays.HISTORIES);
    }
  }
}
