package dev.kandev.recovery.workflows.resume;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import io.temporal.api.common.v1.Payload;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The launch step's result gained {@code sessionMethod}: results recorded before it still read (the
 * field is null), and a worker of the code before it reads the new results (the field is ignored).
 */
class LaunchOutcomePayloadTest {
  /** {@link LaunchOutcome} as it was before {@code sessionMethod}. */
  record LaunchOutcomeBefore(String providerSessionId, boolean loaded, long pid, String agentName) {}

  private static Payload json(String text) {
    return Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFrom(text, StandardCharsets.UTF_8))
        .build();
  }

  @Test
  void aResultRecordedBeforeTheFieldReadsWithoutAMethod() {
    LaunchOutcome read = RecoveryDataConverter.INSTANCE.fromPayload(
        json("{\"providerSessionId\":\"sess_1\",\"loaded\":true,\"pid\":42,\"agentName\":\"test-agent\"}"),
        LaunchOutcome.class, LaunchOutcome.class);

    assertThat(read).isEqualTo(new LaunchOutcome("sess_1", true, 42, "test-agent", null));
  }

  @Test
  void codeFromBeforeTheFieldReadsANewResult() {
    Payload written = RecoveryDataConverter.INSTANCE
        .toPayload(new LaunchOutcome("sess_1", true, 42, "test-agent", "session/resume")).orElseThrow();

    assertThat(written.getData().toStringUtf8()).contains("\"sessionMethod\":\"session/resume\"");
    assertThat(RecoveryDataConverter.INSTANCE.fromPayload(written, LaunchOutcome.class, LaunchOutcome.class).sessionMethod())
        .isEqualTo("session/resume");
    assertThat(RecoveryDataConverter.INSTANCE.fromPayload(written, LaunchOutcomeBefore.class, LaunchOutcomeBefore.class))
        .isEqualTo(new LaunchOutcomeBefore("sess_1", true, 42, "test-agent"));
  }
}
