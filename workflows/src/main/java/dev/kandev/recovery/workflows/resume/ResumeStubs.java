package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * The activity stubs of a resume, gathered by the job they do: the store steps ({@link StoreSteps},
 * local or as activities), the lease (local or as an activity), the launch and the agent's stop (on
 * the shared queue or the session's host), and the compensations with their long retries. Creating a
 * stub issues no command; which one a step uses is chosen by the versioned branches ({@link ResumeChanges}).
 */
final class ResumeStubs {
  /** The store steps as activities: histories from before {@link ResumeChanges#LOCAL_STORE_STEPS}. */
  final StoreSteps storeActivities;
  /** The store steps as local activities, the release after a settle with the compensations' retries. */
  final StoreSteps localStore = new StoreSteps(
      Workflow.newLocalActivityStub(ResumeLockActivities.class, ResumeActivityOptions.STORE_LOCAL),
      Workflow.newLocalActivityStub(SessionActivities.class, ResumeActivityOptions.STORE_LOCAL),
      Workflow.newLocalActivityStub(ResumeLockActivities.class, ResumeActivityOptions.UNLOCK_LOCAL));
  /** Start fresh's clearing of the stored identity, an activity. */
  final SessionActivities sessions = Workflow.newActivityStub(SessionActivities.class, ResumeActivityOptions.STORE);
  /** The lease as an activity: histories from before {@link ResumeChanges#LOCAL_CREDENTIAL_LEASE}. */
  final CredentialActivities leaseActivity =
      Workflow.newActivityStub(CredentialActivities.class, ResumeActivityOptions.CREDENTIALS);
  final CredentialActivities localLease =
      Workflow.newLocalActivityStub(CredentialActivities.class, ResumeActivityOptions.CREDENTIALS_LOCAL);
  /** The launch on the shared queue: histories from before {@link ResumeChanges#HOST_QUEUES}, or no host. */
  final AgentActivities sharedLauncher = Workflow.newActivityStub(AgentActivities.class, ResumeActivityOptions.LAUNCH);

  // The compensations (and the lock release after a failure): they retry until they are done.
  final ResumeLockActivities unlocker =
      Workflow.newActivityStub(ResumeLockActivities.class, ResumeActivityOptions.COMPENSATION);
  final SessionActivities restorer =
      Workflow.newActivityStub(SessionActivities.class, ResumeActivityOptions.COMPENSATION);
  final CredentialActivities revoker =
      Workflow.newActivityStub(CredentialActivities.class, ResumeActivityOptions.COMPENSATION);
  /** The agent's stop on the shared queue: also what withdraws a launch whose host did not take the stop. */
  final AgentActivities sharedStopper =
      Workflow.newActivityStub(AgentActivities.class, ResumeActivityOptions.COMPENSATION);

  ResumeStubs() {
    storeActivities = new StoreSteps(
        Workflow.newActivityStub(ResumeLockActivities.class, ResumeActivityOptions.STORE), sessions, unlocker);
  }

  /** The launcher and stopper on the shared queue. */
  HostAgents sharedQueue(Duration hostWait) {
    return new HostAgents("", hostWait, sharedLauncher, sharedStopper);
  }

  /** The launcher on {@code host}'s launch queue and the stopper on its queue, each waiting for its worker at most {@code wait}. */
  HostAgents onHost(String host, Duration wait) {
    String queue = Workflow.getInfo().getTaskQueue();
    return new HostAgents(host, wait,
        Workflow.newActivityStub(AgentActivities.class,
            ResumeActivityOptions.launchOn(RecoveryTaskQueue.launchesOf(queue, host), wait)),
        Workflow.newActivityStub(AgentActivities.class,
            ResumeActivityOptions.stopOn(RecoveryTaskQueue.ofHost(queue, host), wait)));
  }
}
