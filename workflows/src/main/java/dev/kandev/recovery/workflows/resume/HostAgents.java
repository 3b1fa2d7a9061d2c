package dev.kandev.recovery.workflows.resume;

import java.time.Duration;

/**
 * Where the session's agent is launched and stopped: the stubs on its host's queues, and how long
 * the launch waits for a worker of that host; {@code host} is empty for the shared queue.
 */
record HostAgents(String host, Duration hostWait, AgentActivities launcher, AgentActivities stopper) {
  String where() {
    return host.isEmpty() ? "" : " on host " + host;
  }
}
