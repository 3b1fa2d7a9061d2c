package dev.kandev.recovery.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.limits.LaunchLimits;
import dev.kandev.recovery.worker.limits.LaunchSlots;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where Kandev's executor launches (KANDEV_LAUNCH_ADAPTER=kandev-executor), Kandev's Go launch worker
 * polls the host's queues with LaunchAgent and StopAgent: the Java worker must not poll them too, or
 * it would take launches meant for Kandev.
 */
class LaunchAdapterQueuesTest {
  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();

  @AfterEach
  void close() {
    env.close();
  }

  private List<String> queuesPolled(boolean pollsHostQueues) {
    List<String> queues = new ArrayList<>();
    TemporalWorkers.register((queue, options) -> {
      queues.add(queue);
      return env.newWorker(queue, options);
    }, "kandev-recovery", new WorkerRegistrations("build-1", (Worker worker, Boolean versioned) -> {},
        List.of(), new LaunchSlots(new LaunchLimits(4, 256), () -> 0), pollsHostQueues));
    return queues;
  }

  @Test
  void ourAgentHostPollsTheHostsQueues() {
    assertThat(queuesPolled(true)).containsExactly("kandev-recovery", "kandev-recovery@build-1", "kandev-recovery@build-1/launch");
  }

  @Test
  void withKandevsExecutorOnlyTheSharedQueueIsPolled() {
    assertThat(queuesPolled(false)).containsExactly("kandev-recovery");
  }
}
