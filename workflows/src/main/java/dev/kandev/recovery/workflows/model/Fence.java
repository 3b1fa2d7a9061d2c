package dev.kandev.recovery.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fencing token of the resume lock a write is made under, from the lock's acquisition through
 * the workflow to every store write. A fenced write applies only while the lock row of its session
 * still carries this token, so a holder that lost its lock to a newer one cannot overwrite the newer
 * holder's work.
 *
 * <p>The token tells runs apart, not the copies of one run's workflow task: a worker that stalled
 * goes on with its stale copy of a task another worker has run since, under the same lock. So the
 * resume's store writes also carry {@code workflowTask}, the event id of the WorkflowTaskStarted of
 * the workflow task that makes them ({@code Workflow.getInfo().getHistoryLength()}: the retry of a
 * timed-out task starts at a later event than the copy it replaces, and so does every later task).
 * The lock row keeps the newest it saw and refuses older ones. {@code 0}: not stamped, only the token
 * is checked (the launch, runs from before).
 *
 * <p>In a payload an unstamped fence is its token, a plain JSON number ({@code 42}), as it was when
 * activities took a {@code long}: recorded histories replay unchanged, and the launch's fence is the
 * number Kandev's executor reads. A stamped one is {@code {"token": 42, "workflowTask": 17}}.
 */
public record Fence(long token, long workflowTask) {
  private static final Fence NONE = new Fence(-1, 0);

  /** For writes that are not made under the resume lock (e.g. prompt turns, agent exit). */
  public static Fence none() {
    return NONE;
  }

  /** The fence of a held lock; its token is positive. */
  public static Fence of(long token) {
    if (token <= 0) {
      throw new IllegalArgumentException("fencing tokens are positive, got " + token);
    }
    return new Fence(token, 0);
  }

  /** This lock's fence for the writes of the workflow task whose WorkflowTaskStarted is event {@code startedEventId}. */
  public Fence inWorkflowTask(long startedEventId) {
    if (isNone() || startedEventId <= 0) {
      throw new IllegalArgumentException("only a held lock's fence is stamped, with a positive event id; got "
          + token + " in " + startedEventId);
    }
    return new Fence(token, startedEventId);
  }

  /** Whether the write carries its workflow task. */
  public boolean isStamped() {
    return workflowTask > 0;
  }

  /**
   * A fence read from a payload: a number (a token, unstamped) or {@code {token, workflowTask}}. The
   * one place a token that is not positive is read as {@link #none()}: {@code 0} meant "no fence"
   * while activities took a {@code long} (see {@link #orNone}), and a negative number is how {@link
   * #none()} itself is written.
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static Fence fromJson(JsonNode json) {
    if (json.isIntegralNumber()) {
      return json.asLong() > 0 ? of(json.asLong()) : none();
    }
    JsonNode token = json.get("token");
    JsonNode workflowTask = json.get("workflowTask");
    if (!json.isObject() || token == null || !token.isIntegralNumber()
        || (workflowTask != null && !workflowTask.isIntegralNumber())) {
      throw new IllegalArgumentException("a fence is a number or {\"token\": n, \"workflowTask\": event id}, got " + json);
    }
    Fence fence = token.asLong() > 0 ? of(token.asLong()) : none();
    return workflowTask == null || workflowTask.asLong() <= 0 || fence.isNone() ? fence : fence.inWorkflowTask(workflowTask.asLong());
  }

  /**
   * The fence an activity was given, where a run may have given none: runs from before the resume
   * context knew its fence scheduled {@code readResumeContext} without that argument (their
   * histories hold two payloads). Temporal passes a missing argument as its type's default: 0 to
   * the {@code long} it was, null to a {@code Fence}; both mean {@link #none()}.
   */
  public static Fence orNone(Fence given) {
    return given == null ? none() : given;
  }

  /** The payload form: the token as a plain number, or the token and the workflow task. */
  @JsonValue
  public Object payload() {
    if (!isStamped()) {
      return token;
    }
    Map<String, Long> stamped = new LinkedHashMap<>();
    stamped.put("token", token);
    stamped.put("workflowTask", workflowTask);
    return stamped;
  }

  /** Whether this is {@link #none()}: the write is not made under a resume lock. */
  public boolean isNone() {
    return token < 0;
  }
}
