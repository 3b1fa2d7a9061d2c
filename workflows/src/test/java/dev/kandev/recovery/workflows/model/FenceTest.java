package dev.kandev.recovery.workflows.model;

import static dev.kandev.recovery.workflows.testing.JsonPayloads.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.common.converter.DataConverter;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A fence in a payload is its token, the plain number recorded histories hold (and Kandev's executor
 * reads in a launch); stamped with its workflow task, the token and that task's started event id.
 */
class FenceTest {
  private static final DataConverter CONVERTER = RecoveryDataConverter.INSTANCE;

  private static Fence read(String text) {
    return CONVERTER.fromPayload(json(text), Fence.class, Fence.class);
  }

  @Test
  void aFenceIsWrittenAsItsTokenAndReadBack() {
    Payload written = CONVERTER.toPayload(Fence.of(42)).orElseThrow();
    assertThat(written.getData().toStringUtf8()).isEqualTo("42");
    assertThat(read("42")).isEqualTo(Fence.of(42));
    assertThat(read(CONVERTER.toPayload(Fence.none()).orElseThrow().getData().toStringUtf8())).isEqualTo(Fence.none());
  }

  @Test
  void aZeroFromARunThatPredatesFencesIsNoFence() {
    assertThat(read("0")).isEqualTo(Fence.none());
    assertThat(read("0").isNone()).isTrue();
  }

  @Test
  void anArgumentARunThatPredatesFencesDidNotSendIsNoFence() {
    // readResumeContext scheduled with (sessionId, mode) only, as in the recorded histories.
    Optional<Payloads> twoArguments = CONVERTER.toPayloads("s1", "RESUME");
    Fence missing = CONVERTER.fromPayloads(2, twoArguments, Fence.class, Fence.class);
    assertThat(Fence.orNone(missing)).isEqualTo(Fence.none());
    assertThat(Fence.orNone(Fence.of(7))).isEqualTo(Fence.of(7));
  }

  @Test
  void aStampedFenceIsWrittenWithItsWorkflowTaskAndReadBack() {
    Fence stamped = Fence.of(42).inWorkflowTask(17);
    Payload written = CONVERTER.toPayload(stamped).orElseThrow();
    assertThat(written.getData().toStringUtf8()).isEqualTo("{\"token\":42,\"workflowTask\":17}");
    assertThat(read(written.getData().toStringUtf8())).isEqualTo(stamped);
    assertThat(stamped.isStamped()).isTrue();
    assertThat(stamped.token()).isEqualTo(42);
    assertThat(read("{\"token\":42}")).isEqualTo(Fence.of(42));
  }

  @Test
  void onlyAHeldLocksFenceIsStampedAndAMalformedOneIsRefusedWithWhatWasWrong() {
    assertThatThrownBy(() -> Fence.none().inWorkflowTask(5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Fence.of(3).inWorkflowTask(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> read("{\"workflowTask\":5}"))
        .hasStackTraceContaining("a fence is a number or {\"token\": n, \"workflowTask\": event id}");
    assertThatThrownBy(() -> read("\"42\"")).hasStackTraceContaining("a fence is a number");
  }
}
