package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@code worker} process started as a terminal starts a foreground command (a process group of
 * its own), on a real Temporal server, with a real agent: what Ctrl-C and kill -9 leave behind.
 */
public class WorkerSignalsIT {
  private static final String SESSION = "s-1";

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();
  /** The worker each test signals, and the agent it runs for {@link #SESSION}. */
  private KandevProcess worker;
  private ExecutorRecord running;

  /**
   * A Temporal server (under the cluster's folder, so the cluster stops it after its processes),
   * a worker, and a Start fresh it served: its agent runs.
   */
  @BeforeEach
  void setUp() throws Exception {
    DevTemporalServer.start(RealTemporalServer.cli(), cluster.dir().resolve("temporal"), cluster.temporalPort, cluster.uiPort);
    cluster.newSession(SESSION, SessionState.CREATED);
    worker = worker("worker-a");
    running = resumeFresh();
  }

  /** {@code kandev-recovery worker} in a session of its own, once it printed "Ready.". */
  private KandevProcess worker(String instance) {
    Map<String, String> env = new HashMap<>(cluster.environment(instance));
    env.put("TEMPORAL_ADDRESS", cluster.temporalAddress());
    return cluster.started(instance, KandevProcess.startInOwnSession(instance, env, cluster.logDir(), "worker"));
  }

  @Test
  void ctrlCInTheTerminalReachesOnlyTheWorkerWhichStopsItsAgentAndRecordsItStopped() throws Exception {
    worker.signalGroup("INT");

    worker.awaitExit(Duration.ofSeconds(60));
    assertThat(worker.output()).contains("Stopping...");
    ExecutorRecord after = cluster.executor(SESSION).orElseThrow();
    assertThat(after.agentExecutionId()).isEqualTo(running.agentExecutionId());
    assertThat(after.status()).as("recorded by the worker, not by the agent's own death: %s", after.errorMessage())
        .isEqualTo("stopped");
    assertGone(running.pid());
  }

  @Test
  void killMinus9OfTheWorkerLeavesNoAgentAndTheNextWorkerResumesTheLostSession() throws Exception {
    worker.signal("KILL");

    worker.awaitExit(Duration.ofSeconds(30));
    assertGone(running.pid());
    worker("worker-b");
    Await.until(() -> cluster.state(SESSION) == SessionState.WAITING_FOR_INPUT
            && cluster.executor(SESSION).map(e -> e.status().equals("running")
                && !e.agentExecutionId().equals(running.agentExecutionId())).orElse(false),
        Duration.ofSeconds(90), "restart recovery to resume " + SESSION + " with a new agent");
  }

  private ExecutorRecord resumeFresh() throws Exception {
    ResumeResult result = cluster.start(SESSION, ResumeMode.START_FRESH).await(Duration.ofMinutes(2));
    assertThat(result.finalState()).isEqualTo(SessionState.WAITING_FOR_INPUT);
    ExecutorRecord agent = cluster.executor(SESSION).orElseThrow();
    assertThat(agent.status()).isEqualTo("running");
    assertThat(ProcessHandle.of(agent.pid()).map(ProcessHandle::isAlive)).contains(true);
    return agent;
  }

  /** The agent process has ended (a zombie waiting for init to reap it runs nothing any more). */
  private static void assertGone(long pid) {
    Await.until(() -> !isRunning(pid), Duration.ofSeconds(20), "agent pid " + pid + " to end");
  }

  private static boolean isRunning(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (IOException e) {
      return false;
    }
  }
}
