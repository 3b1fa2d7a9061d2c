package dev.kandev.recovery.workflows.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RetentionWorkflowTest {
  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
      .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setDataConverter(RecoveryDataConverter.INSTANCE).build())
      .build());
  private final List<PruneBatch> batches = Collections.synchronizedList(new ArrayList<>());

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void eachTableIsPrunedUntilABatchComesBackShortWithTheTablesAge() {
    RetentionPolicy policy = new RetentionPolicy(90, 180, 30, 14, 10);
    RetentionResult result = run(policy, batch -> batch.table() == RetentionTable.SESSION_EVENTS && batches.size() < 2 ? 10 : 4);

    assertThat(result.deleted()).isEqualTo(Map.of(RetentionTable.SESSION_EVENTS, 24L, RetentionTable.SESSION_MESSAGES, 4L,
        RetentionTable.EXECUTORS_RUNNING, 4L, RetentionTable.RUNTIME_UPDATE_JOBS, 4L));
    assertThat(result.more()).isFalse();
    assertThat(batches).extracting(PruneBatch::olderThanDays).containsExactly(90, 90, 90, 180, 30, 14);
    assertThat(batches).allSatisfy(batch -> assertThat(batch.limit()).isEqualTo(10));
  }

  @Test
  void aBacklogLongerThanOneRunsBatchesIsLeftForTheNextRun() {
    RetentionResult result = run(new RetentionPolicy(1, 1, 1, 1, 5),
        batch -> batch.table() == RetentionTable.RUNTIME_UPDATE_JOBS ? 5 : 0);

    assertThat(result.more()).isTrue();
    assertThat(result.deleted().get(RetentionTable.RUNTIME_UPDATE_JOBS)).isEqualTo(5L * RetentionWorkflowImpl.MAX_BATCHES);
    assertThat(batches).hasSize(3 + RetentionWorkflowImpl.MAX_BATCHES);
  }

  private RetentionResult run(RetentionPolicy policy, ToIntFunction<PruneBatch> deleted) {
    Worker worker = env.newWorker("retention");
    worker.registerWorkflowImplementationTypes(RetentionWorkflowImpl.class);
    worker.registerActivitiesImplementations((RetentionActivities) batch -> {
      int rows = deleted.applyAsInt(batch);
      batches.add(batch);
      return rows;
    });
    env.start();
    return env.getWorkflowClient().newWorkflowStub(RetentionWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue("retention").setWorkflowId("retention-test").build()).prune(policy);
  }
}
