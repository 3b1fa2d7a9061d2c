package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.testing.HistoryReplay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays the histories the worker's resume tests recorded (docs/development.md, "Replay histories") against
 * today's workflow code: a change that would break running resumes fails here, and then needs a
 * {@code Workflow.getVersion} branch or a deliberate re-recording.
 */
class ResumeSessionReplayTest {
  private HistoryReplay replay;

  @BeforeEach
  void worker() {
    replay = new HistoryReplay(worker -> worker.registerWorkflowImplementationTypes(ResumeSessionWorkflowImpl.class));
  }

  @AfterEach
  void close() {
    replay.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {
    "resume-success-github", "resume-launch-failure-compensated", "resume-credential-rejected", "resume-start-fresh",
    "resume-worker-died-after-starting", "resume-worker-died-during-launch",
    "real-server-resume-worker-died-after-starting", "real-server-resume-worker-died-during-launch",
    "real-server-resume-dev-killed-during-launch", "real-server-resume-on-host", "real-server-resume-host-unavailable",
    // Since "local-store-steps": the lock and session steps as local activities.
    "local-steps-resume-success-github", "local-steps-resume-launch-failure-compensated",
    "local-steps-resume-credential-rejected", "local-steps-resume-start-fresh",
    "local-steps-resume-worker-died-after-starting", "local-steps-resume-worker-died-during-launch",
    "local-steps-resume-worker-died-after-settleSession", "local-steps-resume-worker-died-after-releaseResumeLock",
    "local-steps-resume-dev-killed-during-launch", "local-steps-resume-on-host", "local-steps-resume-host-unavailable",
    // Since "host-wait-field": the request's hostWait chooses the launch's host wait.
    "host-wait-field-resume-restart-recovery",
    // Before "one-failed-outcome": KandevOutcome REJECTED for a resume that changed nothing.
    "local-steps-resume-rejected-before-one-outcome",
    "local-steps-resume-rejected",
    // Since "local-credential-lease": the lease as a local activity, issued once per attempt.
    "local-lease-resume-success-github", "local-lease-resume-launch-failure-compensated",
    "local-lease-resume-credential-rejected", "local-lease-resume-start-fresh",
    "local-lease-resume-worker-died-after-starting", "local-lease-resume-worker-died-after-lease",
    "local-lease-resume-worker-died-during-launch", "local-lease-resume-agent-lost-after-settleSession",
    "local-lease-resume-agent-lost-after-releaseResumeLock",
    // Before "unstarted-launch-cancel": a launch cancelled before a worker took it was stopped on its host.
    "local-lease-resume-cancelled-before-launch-started",
    // Since "unstarted-launch-cancel": it is not.
    "unstarted-launch-cancel-resume-cancelled",
    // Since "fewer-events": one version marker, one search-attribute upsert, no memo.
    "fewer-events-resume-success-github", "fewer-events-resume-launch-failure-compensated",
    "fewer-events-resume-credential-rejected", "fewer-events-resume-start-fresh", "fewer-events-resume-rejected",
    "fewer-events-resume-cancelled", "fewer-events-resume-restart-recovery",
    "fewer-events-resume-worker-died-after-starting", "fewer-events-resume-worker-died-after-lease",
    "fewer-events-resume-worker-died-during-launch", "fewer-events-resume-agent-lost-after-settleSession",
    "fewer-events-resume-agent-lost-after-releaseResumeLock",
    // Since version 2 of "fewer-events": the search attributes in one upsert with the outcome.
    "one-upsert-resume-success-github", "one-upsert-resume-launch-failure-compensated",
    "one-upsert-resume-credential-rejected", "one-upsert-resume-start-fresh", "one-upsert-resume-rejected",
    "one-upsert-resume-cancelled", "one-upsert-resume-restart-recovery",
    "one-upsert-resume-worker-died-after-starting", "one-upsert-resume-worker-died-after-lease",
    "one-upsert-resume-worker-died-during-launch", "one-upsert-resume-agent-lost-after-settleSession",
    "one-upsert-resume-agent-lost-after-releaseResumeLock",
    // Since "lost-task-writes": a failure before the snapshot step also undoes a lost workflow task's writes.
    "lost-task-writes-resume-rejected", "lost-task-writes-resume-credential-rejected"
  })
  void recordedHistoryReplaysDeterministically(String name) throws Exception {
    replay.replay(name);
  }
}
