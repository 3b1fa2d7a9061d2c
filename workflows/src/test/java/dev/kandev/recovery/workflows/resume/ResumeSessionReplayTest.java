package dev.kandev.recovery.workflows.resume;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays the histories the worker's resume tests recorded (README "Replay histories") against
 * today's workflow code: a change that would break running resumes fails here, and then needs a
 * {@code Workflow.getVersion} branch or a deliberate re-recording.
 */
class ResumeSessionReplayTest {
  @ParameterizedTest
  @ValueSource(strings = {
    "resume-success-github", "resume-launch-failure-compensated", "resume-credential-rejected", "resume-start-fresh",
    "resume-worker-died-after-starting", "resume-worker-died-during-launch",
    "real-server-resume-worker-died-after-starting", "real-server-resume-worker-died-during-launch",
    "real-server-resume-dev-killed-during-launch"
  })
  void recordedHistoryReplaysDeterministically(String name) throws Exception {
    WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(resource("/histories/" + name + ".json"));
    assertThat(history.getEvents()).isNotEmpty();

    WorkflowReplayer.replayWorkflowExecution(history, ResumeSessionWorkflowImpl.class);
  }

  private static String resource(String path) throws IOException {
    try (InputStream in = ResumeSessionReplayTest.class.getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
