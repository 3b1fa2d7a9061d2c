package dev.kandev.recovery.activities.store.kandev;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fixture of Kandev's schema has Kandev's types, no CHECK but the priority one, and no trigger. */
class KandevSchemaFixtureTest {
  @RegisterExtension final TestDatabase db = new TestDatabase(StoreLayout.Kind.KANDEV);

  @Test
  void kandevsTablesHaveKandevsTypesAndNoChecksOrTriggersOfOurs() {
    String k = db.layout().kandevSchema();
    assertThat(db.fixtures().strings("SELECT table_name || '.' || column_name || ' ' || data_type"
            + " FROM information_schema.columns WHERE table_schema = ? AND column_name IN ('metadata', 'updated_at',"
            + " 'is_primary', 'resumable') AND table_name IN ('task_sessions', 'executors_running') ORDER BY 1", k))
        .containsExactly(
            "executors_running.metadata text",
            "executors_running.resumable integer",
            "executors_running.updated_at timestamp without time zone",
            "task_sessions.is_primary integer",
            "task_sessions.metadata text",
            "task_sessions.updated_at timestamp without time zone");
    assertThat(db.fixtures().strings("SELECT conname FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace"
        + " WHERE n.nspname = ? AND c.contype = 'c'", k)).containsExactly("tasks_priority_check");
    assertThat(db.fixtures().count("SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
        + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND NOT t.tgisinternal", k)).isZero();
    assertThat(db.fixtures().strings("SELECT table_name FROM information_schema.tables WHERE table_schema = ? ORDER BY 1", k))
        .containsExactly("executors_running", "repositories", "task_repositories", "task_session_messages",
            "task_session_prompt_seq", "task_session_turns", "task_sessions", "task_status_summaries", "tasks",
            "workspaces");
  }
}
