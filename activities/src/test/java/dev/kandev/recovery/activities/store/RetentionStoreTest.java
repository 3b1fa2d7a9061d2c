package dev.kandev.recovery.activities.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.RetentionWorld;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.retention.PruneBatch;
import dev.kandev.recovery.workflows.retention.RetentionTable;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RetentionStoreTest {
  @RegisterExtension final TestDatabase db = new TestDatabase();
  private final RetentionStore store = new RetentionStore();

  @Test
  void batchesDeleteWhatIsOldAndUnneededAndKeepWhatAResumeReads() {
    RetentionWorld world = new RetentionWorld(db.fixtures()).create();
    long before = world.rows();

    long deleted = 0;
    for (RetentionTable table : RetentionTable.values()) {
      int batch;
      do {
        PruneBatch prune = new PruneBatch(table, 30, 2);
        batch = db.tx(h -> store.prune(h, prune));
        assertThat(batch).isBetween(0, 2);
        deleted += batch;
      } while (batch == 2);
    }

    assertThat(deleted).isEqualTo(RetentionWorld.DELETABLE);
    assertThat(world.rows()).isEqualTo(before - RetentionWorld.DELETABLE);
    world.assertKept();
    world.assertPruned();
  }

  @Test
  void rowsYoungerThanTheAgeStay() {
    RetentionWorld world = new RetentionWorld(db.fixtures()).create();
    long before = world.rows();

    for (RetentionTable table : RetentionTable.values()) {
      PruneBatch prune = new PruneBatch(table, 500, 100);
      int deleted = db.tx(h -> store.prune(h, prune));
      assertThat(deleted).as(table.name()).isZero();
    }
    assertThat(world.rows()).isEqualTo(before);
  }

  @Test
  void aRowSomeoneHoldsLockedIsSkippedNotWaitedFor() throws Exception {
    new RetentionWorld(db.fixtures()).create();
    try (Connection other = db.dataSource().getConnection(); Statement lock = other.createStatement()) {
      other.setAutoCommit(false);
      lock.executeQuery("SELECT 1 FROM runtime_update_jobs WHERE id = 'job-failed-old' FOR UPDATE");

      int deleted = db.tx(h -> store.prune(h, new PruneBatch(RetentionTable.RUNTIME_UPDATE_JOBS, 30, 100)));

      assertThat(deleted).isEqualTo(1);
      other.rollback();
    }
    assertThat(db.fixtures().strings("SELECT id FROM runtime_update_jobs WHERE status IN ('succeeded', 'failed')"
        + " AND finished_at < now() - interval '30 days'")).containsExactly("job-failed-old");
  }
}
