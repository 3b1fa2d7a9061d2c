package dev.kandev.recovery.workflows.resume;

import io.temporal.workflow.Workflow;

/**
 * The resume's {@code Workflow.getVersion} branches, one method per change id, named after it: each
 * says whether the run takes the change (new runs do; a replayed history from before does not).
 * Where each is asked in the saga is part of the recorded command order, so it must not move.
 *
 * <p>Since {@link #FEWER_EVENTS} a run records one marker, that one, asked before any other command:
 * a run that takes it takes every change before it too, without asking (a marker event each fewer).
 */
final class ResumeChanges {
  /** The launch and the agent's stop go to the session's host queues (before: the shared queue). */
  static final String HOST_QUEUES = "host-queues";
  /** The lock and session steps run as local activities (before: activities). */
  static final String LOCAL_STORE_STEPS = "local-store-steps";
  /** The request's {@code hostWait} chooses the launch's host wait (before: its reason). */
  static final String HOST_WAIT_FIELD = "host-wait-field";
  /** A resume refused before it changed anything is FAILED too (before: REJECTED), one name per outcome. */
  static final String ONE_FAILED_OUTCOME = "one-failed-outcome";
  /** The credential lease runs as a local activity, issued once per attempt (before: an activity). */
  static final String LOCAL_CREDENTIAL_LEASE = "local-credential-lease";
  /** A launch cancelled before a worker took it is not stopped (before: its host was asked to stop it). */
  static final String UNSTARTED_LAUNCH_CANCEL = "unstarted-launch-cancel";
  /**
   * Fewer history events per resume: this one marker stands for all the changes above; the session,
   * task and agent search attributes are set in one upsert once the context is read (or with the
   * outcome when the resume ends before), no memo is upserted (the summary is in the Current Details
   * and the progress lines).
   */
  static final String FEWER_EVENTS = "fewer-events";
  /**
   * Version 2 of {@link #FEWER_EVENTS} (the same marker): the search attributes are set in one upsert,
   * with the outcome, when the resume ends (a running resume is found by its workflow id).
   */
  static final int ONE_UPSERT = 2;
  /**
   * A step that failed because the resume was cancelled (its failure's cause is a cancellation, so
   * Temporal ends the run CANCELED) ends with the outcome CANCELLED (before: FAILED). Asked only then.
   */
  static final String CANCEL_OUTCOME = "cancel-outcome";
  /**
   * A resume that failed for another cause while a cancel arrived (Temporal ends it CANCELED, the
   * Java SDK's doing) lists the outcome CANCELLED too (before: FAILED). Asked only then.
   */
  static final String LATE_CANCEL_OUTCOME = "late-cancel-outcome";
  /**
   * A resume that fails before its history reached the snapshot step also undoes what a lost attempt
   * of its workflow task wrote past that point (finding 15): its STARTING, the leases issued under its
   * fence and the snapshot kept under it (before: only the steps in the history were compensated).
   * Asked only then.
   */
  static final String LOST_TASK_WRITES = "lost-task-writes";

  /** The run's version of {@link #FEWER_EVENTS}. */
  private final int version;

  private ResumeChanges(int version) {
    this.version = version;
  }

  /** The run's changes; asks {@link #FEWER_EVENTS}, so it comes before any other command of the run. */
  static ResumeChanges ask() {
    return new ResumeChanges(Workflow.getVersion(FEWER_EVENTS, Workflow.DEFAULT_VERSION, ONE_UPSERT));
  }

  boolean fewerEvents() {
    return version != Workflow.DEFAULT_VERSION;
  }

  boolean oneUpsert() {
    return version >= ONE_UPSERT;
  }

  boolean hostQueues() {
    return fewerEvents() || takes(HOST_QUEUES);
  }

  boolean localStoreSteps() {
    return fewerEvents() || takes(LOCAL_STORE_STEPS);
  }

  boolean hostWaitField() {
    return fewerEvents() || takes(HOST_WAIT_FIELD);
  }

  boolean oneFailedOutcome() {
    return fewerEvents() || takes(ONE_FAILED_OUTCOME);
  }

  boolean localCredentialLease() {
    return fewerEvents() || takes(LOCAL_CREDENTIAL_LEASE);
  }

  boolean unstartedLaunchCancel() {
    return fewerEvents() || takes(UNSTARTED_LAUNCH_CANCEL);
  }

  boolean cancelOutcome() {
    return takes(CANCEL_OUTCOME);
  }

  boolean lateCancelOutcome() {
    return takes(LATE_CANCEL_OUTCOME);
  }

  boolean lostTaskWrites() {
    return takes(LOST_TASK_WRITES);
  }

  private static boolean takes(String changeId) {
    return Workflow.getVersion(changeId, Workflow.DEFAULT_VERSION, 1) != Workflow.DEFAULT_VERSION;
  }
}
