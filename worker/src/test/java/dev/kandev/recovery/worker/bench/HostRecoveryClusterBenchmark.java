package dev.kandev.recovery.worker.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.bench.Load;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.worker.harness.ActivityRun;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.limits.LaunchLimits;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 13's figures, on the real dev server with worker processes of the packaged jar: restart
 * recovery of N lost sessions of one host next to the host's own limit (spawning and initializing
 * the same agent N times directly, at the same concurrency, in the same run), and resumes per second
 * with 1, 2 and 3 worker processes. Prints; asserts only that it measured what it says.
 */
@Tag("benchmark")
public class HostRecoveryClusterBenchmark {
  private static final int LAUNCH_CAP = 4;
  private static final Map<String, String> LIMITS = Map.of("KANDEV_MAX_CONCURRENT_LAUNCHES", Integer.toString(LAUNCH_CAP));

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  public void restartRecoveryAgainstTheHostsOwnSpawnLimit() throws Exception {
    cluster.dev("dev");
    StringBuilder table = new StringBuilder("""
        | lost sessions | worker ready after start (s) | all settled after worker start (s) | recovery launches/s | direct spawn+initialize/s | ratio |
        |---:|---:|---:|---:|---:|---:|
        """);
    int round = 0;
    for (int n : List.of(50, 100, 200)) {
      String host = "bench-" + (round++);
      String worker = "w-" + host;
      List<String> sessionIds = IntStream.range(0, n).mapToObj(i -> host + "-s" + i).toList();
      cluster.worker(worker, host, LIMITS);
      startFreshAll(sessionIds, host);
      cluster.kill(worker);

      long startedAt = System.nanoTime();
      cluster.worker(worker + "-next", host, LIMITS); // returns once the worker printed Ready
      double readySeconds = (System.nanoTime() - startedAt) / 1e9;
      Await.until(() -> settledOn(worker + "-next") == n, Duration.ofMinutes(15), n + " sessions recovered");
      double settledSeconds = (System.nanoTime() - startedAt) / 1e9;
      double recoveryRate = n / launchWindowSeconds(sessionIds);
      cluster.kill(worker + "-next");

      Load.Result direct = spawnAndInitialize(n);
      table.append("| %d | %.1f | %.1f | %.1f | %.1f | %.2f× |%n".formatted(
          n, readySeconds, settledSeconds, recoveryRate, direct.perSecond(), recoveryRate / direct.perSecond()));
    }
    System.out.println("\nRestart recovery of one host's lost sessions (launch cap " + LAUNCH_CAP
        + "; direct: the same agent spawned and initialized at the same concurrency, same run)\n" + table
        + Machine.describe());
  }

  @Test
  public void resumesPerSecondWithOneTwoAndThreeWorkers() throws Exception {
    cluster.dev("dev"); // one worker (dev's own), host it-host
    int perRound = 40;
    StringBuilder table = new StringBuilder("""
        | worker processes | resumes | resumes/s | median ms | p95 ms |
        |---:|---:|---:|---:|---:|
        """);
    for (int workers = 1; workers <= 3; workers++) {
      if (workers > 1) {
        cluster.worker("w-" + workers, RecoveryCluster.HOST, Map.of("KANDEV_STATE_DIR", cluster.dir().resolve("state-" + workers).toString()));
      }
      List<String> sessionIds = IntStream.range(0, perRound).mapToObj(i -> "r" + i).toList();
      if (workers == 1) {
        startFreshAll(sessionIds, RecoveryCluster.HOST);
      }
      failAll(sessionIds);
      List<Long> millis = Collections.synchronizedList(new ArrayList<>());
      long startedAt = System.nanoTime();
      List<ResumeHandle> resumes = sessionIds.stream().map(id -> cluster.start(id, ResumeMode.RESUME)).toList();
      for (ResumeHandle resume : resumes) {
        resume.await(Duration.ofMinutes(5));
      }
      double seconds = (System.nanoTime() - startedAt) / 1e9;
      for (String sessionId : sessionIds) {
        var history = cluster.client().fetchHistory(ResumeRequest.workflowId(sessionId)).getEvents();
        millis.add(Duration.between(at(history.get(0).getEventTime()), at(history.get(history.size() - 1).getEventTime())).toMillis());
      }
      Collections.sort(millis);
      table.append("| %d | %d | %.1f | %d | %d |%n".formatted(workers, perRound, perRound / seconds,
          millis.get(millis.size() / 2), millis.get((int) Math.ceil(millis.size() * 0.95) - 1)));
    }
    System.out.println("\nResumes of " + perRound + " sessions started at once (RESUME of FAILED sessions with stored"
        + " tokens), by worker processes on one host (dev's own plus 0–2 `worker`s; cap " + LaunchLimits.DEFAULT_MAX_LAUNCHES + " launches each)\n"
        + table + Machine.describe());
  }

  /** First launches (untimed): each session gets its provider session, then runs on {@code host}. */
  private void startFreshAll(List<String> sessionIds, String host) throws Exception {
    List<ResumeHandle> runs = new ArrayList<>();
    for (String sessionId : sessionIds) {
      cluster.newSession(sessionId, SessionState.CREATED);
      cluster.bindHost(sessionId, host);
      runs.add(cluster.start(sessionId, ResumeMode.START_FRESH));
    }
    for (ResumeHandle run : runs) {
      run.await(Duration.ofMinutes(10));
    }
  }

  /** The sessions' agents failed: FAILED, and the workers stopped the agents (untimed). */
  private void failAll(List<String> sessionIds) {
    for (String sessionId : sessionIds) {
      cluster.tx(h -> cluster.sessions().transition(h, sessionId, Set.of(SessionState.WAITING_FOR_INPUT),
          SessionState.FAILED, "benchmark", "agent process exited", Fence.none()));
    }
    Await.until(() -> sessionIds.stream().noneMatch(id -> TestStores.claimsLiveProcess(cluster.executor(id).orElseThrow())),
        Duration.ofMinutes(2), "the reapers to stop the failed sessions' agents");
  }

  private long settledOn(String worker) {
    return cluster.fixtures.count("SELECT count(*) FROM task_sessions t JOIN executors_running e ON e.session_id = t.id"
        + " WHERE t.state = 'WAITING_FOR_INPUT' AND e.status = 'running' AND e.worker_instance = ?", worker);
  }

  /** From the first recovery launch's start to the last one's end, as the server saw them. */
  private double launchWindowSeconds(List<String> sessionIds) {
    List<ActivityRun> launches = sessionIds.stream()
        .flatMap(sessionId -> cluster.activities(ResumeRequest.workflowId(sessionId), null).stream())
        .filter(run -> run.type().equals("LaunchAgent"))
        .toList();
    return ActivityRun.window(launches).toNanos() / 1e9;
  }

  /** The host's limit: {@code n} test agents spawned and answered ACP initialize, {@code LAUNCH_CAP} at a time. */
  private Load.Result spawnAndInitialize(int n) throws Exception {
    List<Process> agents = Collections.synchronizedList(new ArrayList<>());
    try {
      return Load.run(LAUNCH_CAP, n / LAUNCH_CAP, (thread, iteration) -> agents.add(initializedAgent()));
    } finally {
      agents.forEach(Process::destroyForcibly);
    }
  }

  private Process initializedAgent() {
    try {
      Process agent = new ProcessBuilder("node", TestAgent.script().toString(),
          "--mode-file=" + cluster.agentModeFile(), "--state-dir=" + cluster.dir().resolve("agent-state"))
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      agent.getOutputStream().write("""
          {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}
          """.getBytes(StandardCharsets.UTF_8));
      agent.getOutputStream().flush();
      var out = new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8));
      String answer = out.readLine();
      assertThat(answer).contains("\"id\":1").contains("protocolVersion");
      return agent;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Instant at(com.google.protobuf.Timestamp time) {
    return Instant.ofEpochSecond(time.getSeconds(), time.getNanos());
  }
}
