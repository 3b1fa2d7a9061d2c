package dev.kandev.recovery.activities.retention;

import dev.kandev.recovery.activities.store.RetentionStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.workflows.retention.PruneBatch;
import dev.kandev.recovery.workflows.retention.RetentionActivities;

public final class RetentionActivitiesImpl implements RetentionActivities {
  private final Transactions transactions;
  private final RetentionStore store;

  public RetentionActivitiesImpl(Transactions transactions, RetentionStore store) {
    this.transactions = transactions;
    this.store = store;
  }

  @Override
  public int pruneBatch(PruneBatch batch) {
    return transactions.inTransaction("prune " + batch.limit() + " rows of " + batch.table(), h -> store.prune(h, batch));
  }
}
