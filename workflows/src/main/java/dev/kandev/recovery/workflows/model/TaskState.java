package dev.kandev.recovery.workflows.model;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Task states as Kandev persists them in {@code tasks.state} (its {@code task.go}); the names are
 * the stored values. {@link #REVIEW} is the "Turn Finished" bucket.
 */
public enum TaskState {
  TODO,
  CREATED,
  SCHEDULING,
  IN_PROGRESS,
  REVIEW,
  BLOCKED,
  WAITING_FOR_INPUT,
  COMPLETED,
  FAILED,
  CANCELLED;

  /** A turn runs or is being scheduled: Kandev's in-progress bucket; a finished turn moves these to REVIEW. */
  public static final Set<TaskState> TURN_UNDER_WAY = EnumSet.of(IN_PROGRESS, SCHEDULING);

  /** The states a prompt turn moves to IN_PROGRESS from: any but a running or an ended task. */
  public static final Set<TaskState> BEFORE_TURN = EnumSet.of(TODO, CREATED, SCHEDULING, REVIEW, BLOCKED, WAITING_FOR_INPUT);

  /** Parses a stored state name, with an error that lists the valid names. */
  public static TaskState parse(String name) {
    if (name != null) {
      for (TaskState state : values()) {
        if (state.name().equals(name)) {
          return state;
        }
      }
    }
    throw new IllegalArgumentException("unknown task state '" + name + "'; expected one of "
        + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", ")));
  }
}
