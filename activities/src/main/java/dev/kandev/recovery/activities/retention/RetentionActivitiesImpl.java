package dev.kandev.recovery.activities.retention;

import dev.kandev.recovery.activities.store.RetentionStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.workflows.retention.PruneBatch;
import dev.kandev.recovery.workflows.retention.RetentionActivities;

/** Retention's one activity: a batch of {@code store}'s deletes on a transaction of its own. */
public record RetentionActivitiesImpl(Transactions transactions, RetentionStore store) implements RetentionActivities {
  @Override
  public int pruneBatch(PruneBatch batch) {
    return transactions.inTransaction("prune " + batch.limit() + " rows of " + batch.table(), h -> store.prune(h, batch));
  }
}
