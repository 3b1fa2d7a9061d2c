package dev.kandev.recovery.workflows.resume;

import io.temporal.workflow.Workflow;

/**
 * The resume's {@code Workflow.getVersion} branches, one method per change id, named after it: each
 * says whether the run takes the change (new runs do; a replayed history from before does not).
 * Where each is asked in the saga is part of the recorded command order, so it must not move.
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

  boolean hostQueues() {
    return takes(HOST_QUEUES);
  }

  boolean localStoreSteps() {
    return takes(LOCAL_STORE_STEPS);
  }

  boolean hostWaitField() {
    return takes(HOST_WAIT_FIELD);
  }

  boolean oneFailedOutcome() {
    return takes(ONE_FAILED_OUTCOME);
  }

  boolean localCredentialLease() {
    return takes(LOCAL_CREDENTIAL_LEASE);
  }

  boolean unstartedLaunchCancel() {
    return takes(UNSTARTED_LAUNCH_CANCEL);
  }

  private static boolean takes(String changeId) {
    return Workflow.getVersion(changeId, Workflow.DEFAULT_VERSION, 1) != Workflow.DEFAULT_VERSION;
  }
}
