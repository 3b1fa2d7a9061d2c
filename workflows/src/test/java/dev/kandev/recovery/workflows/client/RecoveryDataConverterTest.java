package dev.kandev.recovery.workflows.client;

import static dev.kandev.recovery.workflows.testing.JsonPayloads.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kandev.recovery.workflows.resume.RequestedHostWait;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateRequest;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;

class RecoveryDataConverterTest {
  private static final DataConverter CONVERTER = RecoveryDataConverter.INSTANCE;

  private static <T> ApplicationFailure invalid(String text, Class<T> type) {
    Throwable thrown = catchThrowable(() -> CONVERTER.fromPayload(json(text), type, type));
    assertThat(thrown).isInstanceOf(ApplicationFailure.class);
    ApplicationFailure failure = (ApplicationFailure) thrown;
    assertThat(failure.getType()).isEqualTo("INVALID_REQUEST");
    assertThat(failure.isNonRetryable()).isTrue();
    assertThat(failure.getOriginalMessage()).doesNotContain("dev.kandev", "java.", "`", "DataConverterException");
    return failure;
  }

  @Test
  void unknownFieldsAreIgnoredInInputsAndResults() {
    assertThat(CONVERTER.fromPayload(json("{\"sessionId\":\"s1\",\"mode\":\"START_FRESH\",\"priority\":[1,2]}"),
        ResumeRequest.class, ResumeRequest.class))
        .isEqualTo(new ResumeRequest("s1", ResumeMode.START_FRESH, "user", ""));
    assertThat(CONVERTER.fromPayload(json("{\"sessionId\":\"s1\",\"taskId\":\"t1\",\"outcome\":\"RESUMED\","
        + "\"finalState\":\"RUNNING\",\"providerSessionId\":\"p\",\"loaded\":true,\"addedLater\":{\"x\":1}}"),
        ResumeResult.class, ResumeResult.class).outcome()).isEqualTo(ResumeOutcome.RESUMED);
  }

  @Test
  void anUnreadableWorkflowInputIsAnInvalidRequestInTheContractsWords() {
    assertThat(invalid("{\"agentId\": true}", RuntimeUpdateRequest.class).getOriginalMessage())
        .isEqualTo("invalid RuntimeUpdateWorkflow input: field 'agentId' true is not a string; nothing was done");
    assertThat(invalid("{\"sessionId\": \"s1\", \"mode\": \"resume\"}", ResumeRequest.class).getOriginalMessage())
        .isEqualTo("invalid ResumeSessionWorkflow input: field 'mode' \"resume\" is not one of RESUME, START_FRESH;"
            + " nothing was done");
    assertThat(invalid("{\"sessionId\": 1.5}", ResumeRequest.class).getOriginalMessage())
        .contains("field 'sessionId' 1.5 is not a string");
    assertThat(invalid("\"s1\"", ResumeRequest.class).getOriginalMessage())
        .isEqualTo("invalid ResumeSessionWorkflow input: the payload must be a JSON object; nothing was done");
    assertThat(invalid("{\"sessionId\": \"s1\",", ResumeRequest.class).getOriginalMessage())
        .startsWith("invalid ResumeSessionWorkflow input: it is not valid JSON (line 1, column ");
  }

  @Test
  void theHostWaitIsOneOfItsNamesAndConfiguredWhenMissing() {
    assertThat(CONVERTER.fromPayload(json("{\"sessionId\":\"s1\",\"reason\":\"restart_recovery\"}"),
        ResumeRequest.class, ResumeRequest.class).hostWait()).isEqualTo(RequestedHostWait.CONFIGURED);
    assertThat(CONVERTER.fromPayload(json("{\"sessionId\":\"s1\",\"hostWait\":\"RESTART_RECOVERY\"}"),
        ResumeRequest.class, ResumeRequest.class).hostWait()).isEqualTo(RequestedHostWait.RESTART_RECOVERY);
    assertThat(invalid("{\"sessionId\": \"s1\", \"hostWait\": \"30m\"}", ResumeRequest.class).getOriginalMessage())
        .isEqualTo("invalid ResumeSessionWorkflow input: field 'hostWait' \"30m\" is not one of CONFIGURED, RESTART_RECOVERY;"
            + " nothing was done");
  }

  @Test
  void otherPayloadsFailAsTheyDid() {
    assertThat(catchThrowable(() -> CONVERTER.fromPayload(json("{\"outcome\": 3}"), ResumeResult.class, ResumeResult.class)))
        .isInstanceOf(DataConverterException.class);
  }
}
