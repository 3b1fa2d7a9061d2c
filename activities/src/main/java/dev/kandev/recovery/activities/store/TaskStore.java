package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.TaskState;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/** Tasks and the creation of their sessions (what the Kandev API does before any resume). */
public final class TaskStore {
  private final DataSource dataSource;

  public TaskStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  public void createTask(String taskId, String workspaceId, String title, TaskState state) {
    Sql.inTransaction(
        dataSource,
        "create task " + taskId,
        c -> {
          try (PreparedStatement insert =
              c.prepareStatement("INSERT INTO tasks (id, workspace_id, title, state) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, taskId);
            insert.setString(2, workspaceId);
            insert.setString(3, title);
            insert.setString(4, state.name());
            return insert.executeUpdate();
          }
        });
  }

  /** A new session starts in CREATED with empty metadata, like Kandev's default. */
  public void createSession(String sessionId, String taskId, String agentId, String workspacePath) {
    Sql.inTransaction(
        dataSource,
        "create session " + sessionId,
        c -> {
          try (PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO task_sessions (id, task_id, agent_id, workspace_path) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, sessionId);
            insert.setString(2, taskId);
            insert.setString(3, agentId);
            insert.setString(4, workspacePath);
            return insert.executeUpdate();
          }
        });
  }

  /** The workspace a task belongs to. */
  public Optional<String> workspaceOf(String taskId) {
    return column(taskId, "workspace_id");
  }

  public Optional<TaskState> taskState(String taskId) {
    return column(taskId, "state").map(TaskState::parse);
  }

  private Optional<String> column(String taskId, String column) {
    return Sql.inTransaction(
        dataSource,
        "read " + column + " of task " + taskId,
        c -> {
          try (PreparedStatement select = c.prepareStatement("SELECT " + column + " FROM tasks WHERE id = ?")) {
            select.setString(1, taskId);
            try (ResultSet rs = select.executeQuery()) {
              return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
          }
        });
  }

  /** Compare-and-set of the task state; true if it moved. */
  public boolean transitionTask(String taskId, Set<TaskState> expected, TaskState target) {
    return Sql.inTransaction(
        dataSource,
        "transition task " + taskId + " to " + target,
        c -> {
          try (PreparedStatement update =
              c.prepareStatement(
                  "UPDATE tasks SET state = ?, updated_at = now() WHERE id = ? AND state = ANY(?)")) {
            update.setString(1, target.name());
            update.setString(2, taskId);
            update.setArray(3, c.createArrayOf("text", expected.stream().map(Enum::name).toArray()));
            return update.executeUpdate() == 1;
          }
        });
  }
}
