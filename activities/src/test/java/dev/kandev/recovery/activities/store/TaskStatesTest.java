package dev.kandev.recovery.activities.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.model.TaskState;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link TaskState} is the set of values {@code tasks.state} accepts, written and read by their names. */
class TaskStatesTest {
  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void theEnumIsWhatTheSchemasCheckAllows() {
    String check = db.fixtures().string(
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'tasks'::regclass AND contype = 'c'");

    assertThat(Pattern.compile("'([A-Z_]+)'::text").matcher(check).results().map(m -> m.group(1)))
        .containsExactlyInAnyOrderElementsOf(Arrays.stream(TaskState.values()).map(Enum::name).toList());
  }

  @ParameterizedTest
  @EnumSource(TaskState.class)
  void eachStateIsStoredAsItsNameAndReadBack(TaskState state) {
    TaskStore tasks = new TaskStore();
    TaskState other = state == TaskState.TODO ? TaskState.REVIEW : TaskState.TODO;
    db.fixtures().task("t1", "ws-1", other.name()).session("s1", "t1", "test-agent", SessionState.CREATED, "{}");

    assertThat(db.tx((Handle h) -> tasks.transitionTaskOf(h, "s1", EnumSet.of(state), other))).as("not in %s", state).isFalse();
    assertThat(db.tx((Handle h) -> tasks.transitionTaskOf(h, "s1", EnumSet.of(other), state))).isTrue();

    assertThat(db.fixtures().string("SELECT state FROM tasks WHERE id = ?", "t1")).isEqualTo(state.name());
    assertThat(db.tx((Handle h) -> TestStores.taskState(h, "t1"))).contains(state);
  }
}
