package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.process.ProcessTrees;
import dev.kandev.recovery.activities.store.AgentProcessStore.AgentProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a launch spawns the session's agent: stops any earlier agent process of the session that a
 * worker of this host recorded and that still lives — typically the child of a worker that is
 * stopped (SIGSTOP) or cut off, which cannot stop it itself, so that two agents of one session never
 * run at once (finding 10 of docs/reliability.md). A process is signalled only if its pid and its
 * start instant both match the record: a pid the kernel has given to another process since is left
 * alone, and so is a record without a start instant (an older release's launch). SIGTERM to the
 * process and its descendants, SIGKILL after {@code grace}, then a bounded wait until it is gone; a
 * zombie counts as gone (its stopped parent reaps it when it continues, and it runs nothing).
 */
final class EarlierAgentStopper {
  private static final Logger log = LoggerFactory.getLogger(EarlierAgentStopper.class);
  private static final Duration KILL_WAIT = Duration.ofSeconds(5);
  private static final Duration POLL = Duration.ofMillis(20);
  private static final Path PROC = Path.of("/proc");

  private final AgentExecutions executions;
  private final Duration grace;

  EarlierAgentStopper(AgentExecutions executions, Duration grace) {
    this.executions = executions;
    this.grace = grace;
  }

  /**
   * Stops every earlier agent process of the session on this host; this worker's own registered
   * agent must have been stopped already.
   *
   * @throws AgentLaunchException one of them could not be stopped: no new agent may start
   */
  void stopEarlierAgents(String sessionId) {
    for (AgentProcess recorded : executions.recordedOnThisHost(sessionId)) {
      stop(recorded);
    }
  }

  /**
   * Forgets the recorded processes of this host that have ended without their worker recording it
   * (a worker killed with SIGKILL: its agents exit on their closed stdin) or whose pid another
   * process has now. Returns how many.
   */
  int forgetEnded() {
    int forgotten = 0;
    for (AgentProcess recorded : executions.recordedOnThisHost()) {
      Optional<ProcessHandle> process = ProcessHandle.of(recorded.pid()).filter(EarlierAgentStopper::running);
      boolean ended = process.isEmpty() || recorded.startedAt() != null
          && !process.get().info().startInstant().map(recorded.startedAt()::equals).orElse(false);
      if (ended) {
        executions.forgetProcess(recorded.sessionId(), recorded.executionId());
        forgotten++;
      }
    }
    return forgotten;
  }

  private void stop(AgentProcess recorded) {
    String sessionId = recorded.sessionId();
    Optional<ProcessHandle> process = ProcessHandle.of(recorded.pid()).filter(EarlierAgentStopper::running);
    if (process.isEmpty()) {
      executions.forgetProcess(sessionId, recorded.executionId());
      return;
    }
    if (recorded.startedAt() == null) {
      log.warn("session {}: pid {} of its earlier agent execution {} (worker {}) still runs, but it was recorded without"
              + " its start instant (an older release's launch): not stopped, it may be another process now",
          sessionId, recorded.pid(), recorded.executionId(), recorded.workerInstance());
      return;
    }
    Optional<Instant> started = process.get().info().startInstant();
    if (started.isEmpty() || !started.get().equals(recorded.startedAt())) {
      log.info("session {}: pid {} of its earlier agent execution {} belongs to another process now (started {},"
              + " the agent {}): not touched", sessionId, recorded.pid(), recorded.executionId(),
          started.map(Object::toString).orElse("at an unknown time"), recorded.startedAt());
      executions.forgetProcess(sessionId, recorded.executionId());
      return;
    }
    log.warn("session {}: stopping its earlier agent pid {} (execution {} of worker {}) before launching a new one",
        sessionId, recorded.pid(), recorded.executionId(), recorded.workerInstance());
    ProcessTrees.terminate(process.get());
    if (!goneWithin(process.get(), grace)) {
      ProcessTrees.destroyForcibly(process.get());
      if (!goneWithin(process.get(), KILL_WAIT)) {
        throw LaunchFailures.startFailed("the earlier agent pid " + recorded.pid() + " of session " + sessionId
            + " (execution " + recorded.executionId() + ") still runs " + KILL_WAIT.toSeconds()
            + " s after SIGKILL; no new agent was started", null);
      }
    }
    executions.forgetProcess(sessionId, recorded.executionId());
  }

  private static boolean goneWithin(ProcessHandle process, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (running(process)) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw LaunchFailures.startFailed("interrupted while stopping an earlier agent pid " + process.pid(), e);
      }
    }
    return true;
  }

  /**
   * Whether the process still runs. Java counts a zombie as alive (its parent, maybe a stopped
   * worker, has not reaped it), but a zombie runs nothing: on Linux its state in {@code /proc} decides.
   */
  static boolean running(ProcessHandle process) {
    if (!process.isAlive()) {
      return false;
    }
    Path stat = PROC.resolve(Long.toString(process.pid())).resolve("stat");
    if (!Files.isDirectory(PROC.resolve("self"))) {
      return true;
    }
    try {
      String text = Files.readString(stat);
      char state = text.charAt(text.lastIndexOf(')') + 2);
      return state != 'Z' && state != 'X';
    } catch (IOException | RuntimeException e) {
      return false; // gone while we read it
    }
  }
}
