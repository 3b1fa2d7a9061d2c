package dev.kandev.recovery.worker.it;

import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeMode;

/**
 * A Resume of a FAILED session with a stored token, its agent started and held in ACP initialize
 * by the test agent: the moment a crash test kills the process running the launch.
 */
record HeldLaunch(String token, ResumeHandle resume, ExecutorRecord agent) {
  static HeldLaunch start(RecoveryCluster cluster, String sessionId) throws Exception {
    String token = cluster.failedSessionWithToken(sessionId);
    cluster.agentMode("hold-initialize");
    ResumeHandle resume = cluster.start(sessionId, ResumeMode.RESUME);
    return new HeldLaunch(token, resume, cluster.awaitAgentStarting(sessionId));
  }
}
