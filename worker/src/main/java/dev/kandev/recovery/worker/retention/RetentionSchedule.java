package dev.kandev.recovery.worker.retention;

import dev.kandev.recovery.workflows.retention.RetentionWorkflow;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import io.temporal.client.schedules.ScheduleUpdate;
import java.time.Duration;
import java.util.List;

/**
 * The Temporal Schedule that runs {@link RetentionWorkflow}, one per namespace and task queue: every
 * worker creates it at start or, when it exists, sets its spec and action to the worker's settings
 * (the last worker to start wins; set the KANDEV_RETENTION_* settings alike on all workers). A
 * pause made in the Web UI is kept.
 */
public final class RetentionSchedule {
  private RetentionSchedule() {}

  public static String id(String taskQueue) {
    return "kandev-retention-" + taskQueue;
  }

  /** {@link #ensure(ScheduleClient, String, RetentionSettings)} on the namespace, data converter and identity of {@code client}. */
  public static ScheduleHandle ensure(WorkflowClient client, String taskQueue, RetentionSettings settings) {
    ScheduleClient schedules = ScheduleClient.newInstance(client.getWorkflowServiceStubs(), ScheduleClientOptions.newBuilder()
        .setNamespace(client.getOptions().getNamespace())
        .setIdentity(client.getOptions().getIdentity())
        .setDataConverter(client.getOptions().getDataConverter())
        .build());
    return ensure(schedules, taskQueue, settings);
  }

  /** Creates or updates the schedule of {@code taskQueue}; returns its handle. */
  public static ScheduleHandle ensure(ScheduleClient schedules, String taskQueue, RetentionSettings settings) {
    Schedule schedule = schedule(taskQueue, settings);
    try {
      return schedules.createSchedule(id(taskQueue), schedule, ScheduleOptions.newBuilder().build());
    } catch (ScheduleAlreadyRunningException e) {
      ScheduleHandle handle = schedules.getHandle(id(taskQueue));
      handle.update(input -> new ScheduleUpdate(Schedule.newBuilder(schedule)
          .setState(input.getDescription().getSchedule().getState())
          .build()));
      return handle;
    }
  }

  private static Schedule schedule(String taskQueue, RetentionSettings settings) {
    return Schedule.newBuilder()
        .setAction(ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(RetentionWorkflow.class)
            .setArguments(settings.policy())
            .setOptions(WorkflowOptions.newBuilder()
                .setWorkflowId(id(taskQueue))
                .setTaskQueue(taskQueue)
                .setWorkflowRunTimeout(Duration.ofHours(1))
                .build())
            .build())
        .setSpec(ScheduleSpec.newBuilder()
            .setIntervals(List.of(new ScheduleIntervalSpec(settings.every())))
            .build())
        .setPolicy(SchedulePolicy.newBuilder().setOverlap(ScheduleOverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP).build())
        .build();
  }
}
