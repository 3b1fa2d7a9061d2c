package dev.kandev.recovery.workflows.model;

import java.util.EnumSet;
import java.util.Set;

/**
 * The sidebar bucket Kandev shows a task in, from its most active session's state and the task
 * state (Kandev's {@code classifyTask}). A task in {@link #REVIEW} shows as "Turn Finished". Kandev
 * shows the buckets, not this project: the tests use it to check where a task is shown during and
 * after a resume.
 */
public enum ReviewBucket {
  REVIEW,
  IN_PROGRESS,
  BACKLOG;

  private static final Set<TaskState> REVIEW_TASK_STATES = EnumSet.of(TaskState.REVIEW, TaskState.COMPLETED);

  /** @param sessionState null when the task has no session */
  public static ReviewBucket classify(SessionState sessionState, TaskState taskState) {
    if (sessionState == null
        || ((sessionState == SessionState.CREATED || sessionState == SessionState.STARTING) && taskState != null)) {
      // While a session (re)starts, the task state decides: a resumed REVIEW task stays in review.
      if (REVIEW_TASK_STATES.contains(taskState)) {
        return REVIEW;
      }
      return TaskState.TURN_UNDER_WAY.contains(taskState) ? IN_PROGRESS : BACKLOG;
    }
    return switch (sessionState) {
      case WAITING_FOR_INPUT, COMPLETED, FAILED, CANCELLED -> REVIEW;
      case RUNNING -> IN_PROGRESS;
      default -> BACKLOG;
    };
  }
}
