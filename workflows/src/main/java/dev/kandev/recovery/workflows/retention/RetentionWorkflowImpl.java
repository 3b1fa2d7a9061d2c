package dev.kandev.recovery.workflows.retention;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/** Prunes each table in batches of the policy's size (one activity each), within {@link #MAX_BATCHES} per table. */
public class RetentionWorkflowImpl implements RetentionWorkflow {
  /** Batches per table and run: bounds the history (two events a batch); a longer backlog waits for the next run. */
  static final int MAX_BATCHES = 200;

  private final RetentionActivities activities = Workflow.newActivityStub(RetentionActivities.class,
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder()
              .setInitialInterval(Duration.ofSeconds(1))
              .setMaximumInterval(Duration.ofMinutes(1))
              .setMaximumAttempts(10)
              .build())
          .build());

  @Override
  public RetentionResult prune(RetentionPolicy policy) {
    Map<RetentionTable, Long> deleted = new EnumMap<>(RetentionTable.class);
    boolean more = false;
    for (RetentionTable table : RetentionTable.values()) {
      long total = 0;
      int batches = 0;
      int last;
      do {
        last = activities.pruneBatch(new PruneBatch(table, policy.days(table), policy.batchSize()));
        total += last;
        batches++;
      } while (last == policy.batchSize() && batches < MAX_BATCHES);
      more |= last == policy.batchSize();
      deleted.put(table, total);
    }
    return new RetentionResult(deleted, more);
  }

  /**
   * As versioned workers run it: auto-upgrade, a cleanup run holds nothing a version must keep
   * (docs/decisions/0002). Only for them: the server refuses a versioning behaviour from an
   * unversioned worker's workflow task.
   */
  public static final class AutoUpgrade extends RetentionWorkflowImpl {
    @Override
    @WorkflowVersioningBehavior(VersioningBehavior.AUTO_UPGRADE)
    public RetentionResult prune(RetentionPolicy policy) {
      return super.prune(policy);
    }
  }
}
