package dev.kandev.recovery.workflows.client;

import static dev.kandev.recovery.workflows.RecoverySearchAttributes.OUTCOME;
import static dev.kandev.recovery.workflows.RecoverySearchAttributes.TASK_ID;

import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import java.util.ArrayList;
import java.util.List;

/**
 * Which resumes to list: each criterion that is set narrows the list (a visibility query on the
 * search attributes the resume sets, and on its workflow id for the session).
 *
 * @param sessionId the session, by the workflow id of its resumes (set at their start, so a running
 *     resume is found too; {@code KandevSessionId} is set as it ends); null: any
 * @param taskId {@code KandevTaskId}; null: any
 * @param outcome {@code KandevOutcome} ({@code RESUMED}, {@code STARTED_FRESH}, {@code FAILED},
 *     {@code CANCELLED}; {@code FAILED} also finds the {@code REJECTED} of resumes from before one
 *     name per outcome); null: any
 * @param runningOnly only resumes that still run
 */
public record ResumeFilter(String sessionId, String taskId, String outcome, boolean runningOnly) {
  public ResumeFilter {
    sessionId = checked("session", sessionId);
    taskId = checked("task", taskId);
    outcome = checked("outcome", outcome);
  }

  public static ResumeFilter all() {
    return new ResumeFilter(null, null, null, false);
  }

  /** The List Filter, e.g. {@code WorkflowType = 'ResumeSessionWorkflow' AND WorkflowId = 'resume-session-s-1'}. */
  public String query() {
    List<String> terms = new ArrayList<>();
    terms.add("WorkflowType = '" + ResumeSessionWorkflow.TYPE + "'");
    if (sessionId != null) {
      terms.add("WorkflowId = '" + ResumeRequest.workflowId(sessionId) + "'");
    }
    if (taskId != null) {
      terms.add(TASK_ID.getName() + " = '" + taskId + "'");
    }
    if (ResumeOutcome.FAILED.name().equals(outcome)) {
      terms.add(OUTCOME.getName() + " IN ('" + ResumeOutcome.FAILED + "', '" + ResumeOutcome.REJECTED + "')");
    } else if (outcome != null) {
      terms.add(OUTCOME.getName() + " = '" + outcome + "'");
    }
    if (runningOnly) {
      terms.add("ExecutionStatus = 'Running'");
    }
    return String.join(" AND ", terms);
  }

  /** Blank means "any"; a quote or a control character cannot be part of an id and would break the query. */
  private static String checked(String what, String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    if (value.chars().anyMatch(c -> c == '\'' || c == '"' || c == '\\' || Character.isISOControl(c))) {
      throw new IllegalArgumentException("the " + what + " filter '" + value
          + "' has a quote, a backslash or a control character, which no id has");
    }
    return value;
  }
}
