package dev.kandev.recovery.worker.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflowImpl;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The tracing interceptors on a worker that rebuilds a resume from its history (a failover, a run
 * that left the cache): the recorded history still replays, and the steps it replays, traced when
 * they first ran, get no span again.
 */
class TracedReplayTest {
  @Test
  void aReplayedResumeReplaysAsRecordedAndAddsNoStepSpans() throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(RecoveryDataConverter.INSTANCE).build())
        .setWorkerFactoryOptions(WorkerFactoryOptions.newBuilder()
            .setWorkerInterceptors(new TracingWorkerInterceptor(provider.get("test")))
            .build())
        .build());
    try (provider) {
      Worker worker = env.newWorker("replay");
      worker.registerWorkflowImplementationTypes(ResumeSessionWorkflowImpl.class);

      WorkflowReplayer.replayWorkflowExecution(history("local-steps-resume-success-github"), worker);

      assertThat(spans.getFinishedSpanItems()).extracting(SpanData::getName)
          .isNotEmpty()
          .allMatch(name -> name.startsWith("RunWorkflow:"));
    } finally {
      env.close();
    }
  }

  private static WorkflowExecutionHistory history(String name) throws Exception {
    try (InputStream in = TracedReplayTest.class.getResourceAsStream("/histories/" + name + ".json")) {
      assertThat(in).as(name).isNotNull();
      return WorkflowExecutionHistory.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }
}
