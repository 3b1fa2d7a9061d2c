package dev.kandev.recovery.activities.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import java.util.Set;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker next to a newer release on one schema (docs/upgrades.md "Schema changes"): it keeps working
 * on the next release's expand migration, and refuses to start, changing nothing, once a later release
 * contracted what it still uses. The releases' migrations are in {@code db/release-*} (test resources).
 */
class SchemaCompatibilityTest {
  private static final String THIS_RELEASE = Database.COMMON_MIGRATIONS;
  private static final String THIS_RELEASE_MIRROR = Database.MIRROR_MIGRATIONS;
  private static final String NEXT_RELEASE = "classpath:db/release-next-expand";
  private static final String RELEASE_AFTER = "classpath:db/release-after-contract";

  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void thisReleasesWorkerStartsAndWritesOnTheNextReleasesExpandedSchema() {
    migrateAs(THIS_RELEASE, THIS_RELEASE_MIRROR, NEXT_RELEASE);

    db.fixtures().task("t-1", "ws-1", "TODO").session("s-1", "t-1", "agent", SessionState.IDLE, "{}");
    SessionStore sessions = new MirrorSessionStore(Json.mapper());
    try (Database restarted = reopen().migrate()) {
      TransitionResult moved = restarted.transactions().inTransaction("this release's transition", h -> sessions.transition(
          h, "s-1", Set.of(SessionState.IDLE), SessionState.FAILED, "test", "written by this release", Fence.none()));
      assertThat(moved.outcome()).isEqualTo(TransitionResult.Outcome.APPLIED);
      assertThat(restarted.transactions().inTransaction("this release's read", h -> sessions.get(h, "s-1")).state())
          .isEqualTo(SessionState.FAILED);
    }

    assertThat(db.fixtures().string("SELECT error_message || '|' || upgrade_note FROM task_sessions WHERE id = 's-1'"))
        .isEqualTo("written by this release|");
  }

  @Test
  void thisReleasesWorkerRefusesASchemaALaterReleaseContractedAndChangesNothing() {
    migrateAs(THIS_RELEASE, THIS_RELEASE_MIRROR, NEXT_RELEASE, RELEASE_AFTER);
    long applied = db.fixtures().count("SELECT count(*) FROM flyway_schema_history");

    Database refused = reopen();
    assertThatThrownBy(refused::migrate)
        .isInstanceOf(IncompatibleSchemaException.class)
        .hasMessage("schema " + db.database().schema() + " is at migration 99 and needs a worker that knows migration 99"
            + " or later, but this worker knows migrations up to 16: run that newer release (docs/upgrades.md)");
    assertThat(db.fixtures().count("SELECT count(*) FROM flyway_schema_history")).isEqualTo(applied);
    assertThat(((HikariDataSource) refused.dataSource()).isClosed()).as("the refused worker's pool closed").isTrue();

    Flyway newest = flyway(THIS_RELEASE, THIS_RELEASE_MIRROR, NEXT_RELEASE, RELEASE_AFTER);
    SchemaCompatibility.check(newest, db.dataSource(), db.database().schema());
  }

  private void migrateAs(String... locations) {
    flyway(locations).migrate();
  }

  private Flyway flyway(String... locations) {
    return Flyway.configure().dataSource(db.dataSource()).schemas(db.database().schema()).locations(locations).load();
  }

  /** Another pool on the same schema, as a worker of this release that starts now opens it. */
  private Database reopen() {
    return Database.open(new DatabaseSettings(TestDatabase.URL, TestDatabase.USER, "", db.database().schema(), 2));
  }
}
