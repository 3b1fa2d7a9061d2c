package dev.kandev.recovery.activities.testing.bench;

import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.workflows.model.SessionState;

/** Many sessions at once, one task each, in one statement per table (row by row takes seconds). */
public final class BenchSessions {
  private BenchSessions() {}

  /** Sessions {@code b-0 … b-(count-1)} in {@code state}. */
  public static void insert(Fixtures fixtures, int count, SessionState state) {
    fixtures.exec("INSERT INTO tasks (id, workspace_id, title, state)"
        + " SELECT 't-b-' || i, 'ws-1', 'benchmark task', 'REVIEW' FROM generate_series(0, ? - 1) i", count);
    fixtures.exec("INSERT INTO task_sessions (id, task_id, agent_id, state)"
        + " SELECT 'b-' || i, 't-b-' || i, 'test-agent', ? FROM generate_series(0, ? - 1) i", state.name(), count);
  }

  public static String id(int index) {
    return "b-" + index;
  }
}
