package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.TaskState;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/**
 * Task state moves (Kandev owns the tasks; a resume and a prompt turn only move their state). Runs
 * on the caller's transaction {@link Handle}.
 */
public final class TaskStore {
  /** Compare-and-set of the state of the session's task; true if it moved. */
  public boolean transitionTaskOf(Handle h, String sessionId, Set<TaskState> expected, TaskState target) {
    return h.createUpdate("UPDATE tasks t SET state = :target, updated_at = now() FROM task_sessions s"
            + " WHERE s.id = :sessionId AND t.id = s.task_id AND t.state = ANY(:expected)")
        .bind("target", target.name())
        .bind("sessionId", sessionId)
        .bindArray("expected", String.class, expected.stream().map(Enum::name).toList())
        .execute() == 1;
  }
}
