package dev.kandev.recovery.worker.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.retention.RetentionActivitiesImpl;
import dev.kandev.recovery.activities.store.RetentionStore;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.RetentionWorld;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.retention.RetentionPolicy;
import dev.kandev.recovery.workflows.retention.RetentionResult;
import dev.kandev.recovery.workflows.retention.RetentionWorkflowImpl;
import io.temporal.client.schedules.ScheduleActionExecutionStartWorkflow;
import io.temporal.client.schedules.ScheduleActionResult;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleDescription;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.worker.WorkerFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The retention schedule on a real Temporal dev server, pruning a real PostgreSQL schema when triggered. */
class RetentionScheduleTest {
  private static final String QUEUE = "retention-test";
  @RegisterExtension final TestDatabase db = new TestDatabase();
  @TempDir Path dir;

  @Test
  void theWorkersScheduleIsCreatedOnceKeepsItsPauseAndPrunesWhenTriggered() throws Exception {
    RetentionWorld world = new RetentionWorld(db.fixtures()).create();
    long before = world.rows();
    try (DevTemporalServer server = RealTemporalServer.start(dir.resolve("temporal"));
        TemporalConnection temporal = TemporalConnection.open(server.address(), "default", "retention-test-worker")) {
      WorkerFactory factory = WorkerFactory.newInstance(temporal.client);
      var worker = factory.newWorker(QUEUE);
      worker.registerWorkflowImplementationTypes(RetentionWorkflowImpl.class);
      worker.registerActivitiesImplementations(new RetentionActivitiesImpl(db.transactions(), new RetentionStore()));
      factory.start();
      try {
        RetentionSettings daily = new RetentionSettings(RetentionPolicy.DEFAULT, Duration.ofDays(1));
        RetentionSchedule.ensure(temporal.client, QUEUE, daily).pause("an operator paused it in the Web UI");
        // The next worker start: the ages change (batches of 2: several per table), the pause stays.
        RetentionSettings monthly = new RetentionSettings(new RetentionPolicy(30, 30, 30, 30, 2), Duration.ofDays(1));
        ScheduleHandle schedule = RetentionSchedule.ensure(temporal.client, QUEUE, monthly);

        ScheduleDescription described = schedule.describe();
        assertThat(schedule.getId()).isEqualTo("kandev-retention-" + QUEUE);
        assertThat(described.getSchedule().getState().isPaused()).isTrue();
        assertThat(((ScheduleActionStartWorkflow) described.getSchedule().getAction()).getArguments()
            .get(0, RetentionPolicy.class)).isEqualTo(monthly.policy());
        assertThat(world.rows()).as("nothing ran while paused").isEqualTo(before);

        schedule.unpause();
        schedule.trigger();
        List<ScheduleActionResult> actions = Await.until(() -> schedule.describe().getInfo().getRecentActions(),
            started -> !started.isEmpty(), Duration.ofSeconds(30), "the triggered run");
        var run = (ScheduleActionExecutionStartWorkflow) actions.get(0).getAction();
        RetentionResult result = temporal.client.newUntypedWorkflowStub(run.getWorkflowId())
            .getResult(30, TimeUnit.SECONDS, RetentionResult.class);

        assertThat(result.deleted().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(RetentionWorld.DELETABLE);
        assertThat(result.more()).isFalse();
        world.assertKept();
        world.assertPruned();
      } finally {
        factory.shutdownNow();
      }
    }
  }
}
