package dev.kandev.recovery.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflow;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The longest valid id makes workflow ids that SQL-backed Temporal stores (255-character columns). */
class RecoveryIdsTest {
  private static final String LONGEST = "é".repeat(RecoveryIds.MAX_BYTES / 2 - 1) + "xx";

  @Test
  void theLongestValidIdMakesWorkflowIdsOfAtMost255Bytes() {
    assertThat(LONGEST.getBytes(StandardCharsets.UTF_8)).hasSize(RecoveryIds.MAX_BYTES);
    assertThat(RecoveryIds.problem("sessionId", LONGEST)).isEmpty();
    assertThat(ResumeRequest.workflowId(LONGEST).getBytes(StandardCharsets.UTF_8))
        .hasSizeLessThanOrEqualTo(RecoveryIds.MAX_WORKFLOW_ID_BYTES);
    assertThat(RuntimeUpdateWorkflow.workflowId(LONGEST).getBytes(StandardCharsets.UTF_8))
        .hasSizeLessThanOrEqualTo(RecoveryIds.MAX_WORKFLOW_ID_BYTES);
  }

  @Test
  void oneByteMoreIsRefusedWithItsLength() {
    assertThat(RecoveryIds.problem("sessionId", LONGEST + "x"))
        .contains("sessionId is 241 bytes long; at most 240 (UTF-8) are allowed");
  }
}
