package dev.kandev.recovery.workflows.resume;

import static dev.kandev.recovery.workflows.RecoverySearchAttributes.AGENT_ID;
import static dev.kandev.recovery.workflows.RecoverySearchAttributes.OUTCOME;
import static dev.kandev.recovery.workflows.RecoverySearchAttributes.SESSION_ID;
import static dev.kandev.recovery.workflows.RecoverySearchAttributes.TASK_ID;

import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a resume tells while it runs: the Web UI's Current Details (the step it is at, then its
 * outcome, with the summary of what is resumed and why), the progress lines of the {@code progress}
 * query, the search attributes the listing filters by, and in runs from before {@link
 * ResumeChanges#FEWER_EVENTS} the memo's summary. Details and lines issue no command; the memo and the search
 * attributes do, and where they are set is part of the recorded command order.
 */
final class ResumeNarration {
  private final List<String> lines = new ArrayList<>();
  private ResumeRequest request;
  private ResumeStep step = ResumeStep.ACQUIRE_LOCK;
  /** The Web UI's Current Details once the resume ended: its outcome, never just DONE. */
  private String ending = "";
  /** What is resumed and why, under the step in the Current Details once the context is read. */
  private String summary = "";
  /** Set in one upsert with the task and agent, no memo ({@link ResumeChanges#FEWER_EVENTS}). */
  private boolean fewerEvents;
  /** All set in one upsert with the outcome ({@link ResumeChanges#ONE_UPSERT}). */
  private boolean oneUpsert;
  private boolean sessionSearchable;
  /** The context read, for {@link ResumeChanges#ONE_UPSERT}'s upsert: null until then. */
  private ResumeContext context;

  /** The resume of {@code request} began (the progress query names its session and mode). */
  void began(ResumeRequest request) {
    this.request = request;
  }

  /**
   * The request is valid. Runs from before {@link ResumeChanges#FEWER_EVENTS} make the resume
   * searchable by its session ({@code KandevSessionId}) at once; later ones set it with the task and
   * agent ({@link #describe}), or with the outcome if the resume ends before it read its context;
   * since {@link ResumeChanges#ONE_UPSERT} all of them with the outcome.
   */
  void valid(ResumeChanges changes) {
    fewerEvents = changes.fewerEvents();
    oneUpsert = changes.oneUpsert();
    if (!fewerEvents) {
      Workflow.upsertTypedSearchAttributes(SESSION_ID.valueSet(request.sessionId()));
      sessionSearchable = true;
    }
  }

  ResumeStep step() {
    return step;
  }

  ResumeProgress progress() {
    return new ResumeProgress(request == null ? null : request.sessionId(), request == null ? null : request.mode(),
        step, List.copyOf(lines));
  }

  /** The step the resume is at now, with what it is doing (an empty detail adds no progress line). */
  void enter(ResumeStep next, String detail) {
    step = next;
    if (!detail.isEmpty()) {
      note(next + ": " + detail);
    }
    Workflow.setCurrentDetails(withSummary("**" + next + "** " + detail));
  }

  private String withSummary(String details) {
    return summary.isEmpty() ? details : details + "\n\n" + summary;
  }

  void note(String line) {
    lines.add(line);
  }

  /** What is resumed and why, once the context is read: search attributes, the memo's summary, a line. */
  void describe(ResumeContext context) {
    summary = (request.mode() == ResumeMode.START_FRESH ? "Start fresh" : "Resume")
        + " of session " + context.sessionId() + " (task " + context.taskId() + ", agent " + context.agentId()
        + ") from " + context.priorState() + ", reason " + request.reason()
        + (request.requestedBy().isEmpty() ? "" : ", requested by " + request.requestedBy());
    if (oneUpsert) {
      this.context = context;
    } else if (fewerEvents) {
      Workflow.upsertTypedSearchAttributes(SESSION_ID.valueSet(request.sessionId()),
          TASK_ID.valueSet(context.taskId()), AGENT_ID.valueSet(context.agentId()));
      sessionSearchable = true;
    } else {
      Workflow.upsertTypedSearchAttributes(TASK_ID.valueSet(context.taskId()), AGENT_ID.valueSet(context.agentId()));
      Workflow.upsertMemo(Map.of("summary", summary));
    }
    note(summary);
  }

  /**
   * The resume's outcome as the listing filters by it ({@code KandevOutcome}), with its session if not
   * set yet, and (since {@link ResumeChanges#ONE_UPSERT}) its task and agent once its context was read.
   */
  void outcome(String outcome) {
    if (oneUpsert) {
      List<SearchAttributeUpdate<?>> updates = new ArrayList<>(List.of(SESSION_ID.valueSet(request.sessionId())));
      if (context != null) {
        updates.addAll(List.of(TASK_ID.valueSet(context.taskId()), AGENT_ID.valueSet(context.agentId())));
      }
      updates.add(OUTCOME.valueSet(outcome));
      Workflow.upsertTypedSearchAttributes(updates.toArray(SearchAttributeUpdate<?>[]::new));
    } else if (sessionSearchable) {
      Workflow.upsertTypedSearchAttributes(OUTCOME.valueSet(outcome));
    } else {
      Workflow.upsertTypedSearchAttributes(SESSION_ID.valueSet(request.sessionId()), OUTCOME.valueSet(outcome));
    }
    sessionSearchable = true;
  }

  /** What the Web UI shows once the resume is done. */
  void endWith(String ending) {
    this.ending = ending;
  }

  /** The resume is done: the Current Details show its outcome. */
  void done() {
    step = ResumeStep.DONE;
    Workflow.setCurrentDetails(withSummary(ending.isEmpty() ? "**" + ResumeStep.DONE + "**" : ending));
  }
}
