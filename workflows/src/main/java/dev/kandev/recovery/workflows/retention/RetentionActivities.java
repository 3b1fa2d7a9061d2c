package dev.kandev.recovery.workflows.retention;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The deletes of retention, one short transaction per batch. Activity types are prefixed {@code Retention}. */
@ActivityInterface(namePrefix = "Retention")
public interface RetentionActivities {
  /** Deletes one batch; returns how many rows it deleted (fewer than the limit: nothing older is left to delete). */
  @ActivityMethod
  int pruneBatch(PruneBatch batch);
}
