package dev.kandev.recovery.workflows.runtime;

import dev.kandev.recovery.workflows.HostWaitBounds;
import dev.kandev.recovery.workflows.testing.HistoryReplay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays histories recorded by the worker's RuntimeUpdateWorkflowTest against today's workflow
 * code: a change that would break running jobs fails here. Re-record with
 * {@code mvn -pl worker -am verify -Dtest='RuntimeUpdateWorkflowTest' -Dkandev.recordHistories=true
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class RuntimeUpdateReplayTest {
  private HistoryReplay replay;

  @BeforeEach
  void worker() {
    replay = new HistoryReplay(worker -> worker.registerWorkflowImplementationFactory(
        RuntimeUpdateWorkflow.class, () -> new RuntimeUpdateWorkflowImpl(TestAgents.CATALOGUE, HostWaitBounds.DEFAULT)));
  }

  @AfterEach
  void close() {
    replay.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"success-after-repair", "terminal-failure", "by-type-name"})
  void recordedHistoryReplaysDeterministically(String name) throws Exception {
    replay.replay("runtime-update-" + name);
  }
}
