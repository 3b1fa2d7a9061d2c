package dev.kandev.recovery.worker.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.converter.RawValue;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What a Go or TypeScript starter does: the workflow type name and plain JSON, or no input at all,
 * with none of the Java client's checks.
 */
public final class ByTypeName {
  /** Long enough for a healthy worker, far shorter than a workflow task retried forever. */
  public static final Duration AT_ONCE = Duration.ofSeconds(30);

  private ByTypeName() {}

  public static WorkflowStub start(WorkflowClient client, String queue, String type, String workflowId, Object... input) {
    WorkflowStub stub = client.newUntypedWorkflowStub(type,
        WorkflowOptions.newBuilder().setTaskQueue(queue).setWorkflowId(workflowId).build());
    stub.start(input);
    return stub;
  }

  /** An input of these exact bytes, encoded as JSON (what a starter's own JSON encoder sent). */
  public static RawValue json(String text) {
    return new RawValue(Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFrom(text, StandardCharsets.UTF_8))
        .build());
  }

  /**
   * The run's failure, which must come at once (no workflow task failed and retried before it):
   * a non-retryable ApplicationFailure.
   */
  public static ApplicationFailure failure(WorkflowClient client, WorkflowStub stub) {
    Throwable thrown = catchThrowable(() -> stub.getResult(AT_ONCE.toSeconds(), TimeUnit.SECONDS, Object.class));
    assertThat(thrown).as("the run ended with a failure").isInstanceOf(WorkflowFailedException.class);
    assertThat(thrown.getCause()).isInstanceOf(ApplicationFailure.class);
    ApplicationFailure failure = (ApplicationFailure) thrown.getCause();
    assertThat(failure.isNonRetryable()).isTrue();
    assertThat(client.fetchHistory(stub.getExecution().getWorkflowId(), stub.getExecution().getRunId()).getEvents())
        .as("workflow tasks failed before the run did")
        .noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
    return failure;
  }

  /** Whether any run with this workflow id exists. */
  public static boolean exists(WorkflowClient client, String workflowId) {
    try {
      client.newUntypedWorkflowStub(workflowId, Optional.empty(), Optional.empty()).describe();
      return true;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  /** The message a starter in another language shows: no Java class names, no converter internals. */
  public static void assertReadableByAnyStarter(String message) {
    assertThat(message).doesNotContain("dev.kandev", "java.", "DataConverterException", "io.temporal", "`", "Cannot deserialize");
  }
}
