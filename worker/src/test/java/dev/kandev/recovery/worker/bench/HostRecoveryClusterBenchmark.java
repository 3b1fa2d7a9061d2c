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
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issues 13 and 24's figures, on the real dev server with worker processes of the packaged jar:
 * restart recovery of N lost sessions of one host next to the same launches done directly (spawn,
 * {@code initialize} and {@code session/load} of the same stored sessions, at the same concurrency,
 * in the same run), and resumes per second with 1, 2 and 3 worker processes. Prints; asserts only
 * that it measured what it says (all settled, each launched once, every direct load answered).
 */
@Tag("benchmark")
public class HostRecoveryClusterBenchmark {
  private static final int LAUNCH_CAP = 4;
  /** Lost-session counts, comma-separated (default 50,100,200), e.g. {@code -Dkandev.bench.recoverySessions=8,16}. */
  static final String SESSIONS_PROPERTY = "kandev.bench.recoverySessions";
  private static final Map<String, String> LIMITS = Map.of("KANDEV_MAX_CONCURRENT_LAUNCHES", Integer.toString(LAUNCH_CAP));

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  public void restartRecoveryAgainstTheSameLaunchesDoneDirectly() throws Exception {
    cluster.dev("dev");
    StringBuilder table = new StringBuilder("""
        | lost sessions | worker ready after start (s) | all settled after worker start (s) | eager first tasks | recovery launches/s | direct spawn+initialize+load/s | ratio |
        |---:|---:|---:|---:|---:|---:|---:|
        """);
    int round = 0;
    for (int n : sessionCounts()) {
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
      List<ActivityRun> launches = recoveryLaunches(sessionIds);
      assertThat(launches).as("each lost session launched once, by the next worker").hasSize(n)
          .allMatch(run -> run.worker().equals(worker + "-next"));
      double recoveryRate = n / (ActivityRun.window(launches).toNanos() / 1e9);
      long eager = sessionIds.stream().filter(this::startedEagerly).count();
      cluster.kill(worker + "-next");

      Load.Result direct = spawnInitializeAndLoad(sessionIds);
      table.append("| %d | %.1f | %.1f | %d | %.1f | %.1f | %.2f× |%n".formatted(n, readySeconds, settledSeconds, eager,
          recoveryRate, direct.perSecond(), recoveryRate / direct.perSecond()));
    }
    System.out.println("\nRestart recovery of one host's lost sessions (launch cap " + LAUNCH_CAP
        + "; direct: the same agent spawned, initialized and its stored session loaded, the same sessions, at the"
        + " same concurrency, same run)\n" + table + Machine.describe());
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

  /** The numbers of lost sessions, {@value #SESSIONS_PROPERTY} lowers them for a smoke run (multiples of the cap). */
  private static List<Integer> sessionCounts() {
    return Arrays.stream(System.getProperty(SESSIONS_PROPERTY, "50,100,200").split(","))
        .map(String::trim).map(Integer::parseInt).toList();
  }

  /** The LaunchAgent runs of the sessions' latest resumes (the recovery's), as the server saw them. */
  private List<ActivityRun> recoveryLaunches(List<String> sessionIds) {
    return sessionIds.stream()
        .flatMap(sessionId -> cluster.activities(ResumeRequest.workflowId(sessionId), null).stream())
        .filter(run -> run.type().equals("LaunchAgent"))
        .toList();
  }

  /** The server handed the latest resume's first workflow task back in the start's answer. */
  private boolean startedEagerly(String sessionId) {
    return cluster.client().fetchHistory(ResumeRequest.workflowId(sessionId)).getEvents().get(0)
        .getWorkflowExecutionStartedEventAttributes().getEagerExecutionAccepted();
  }

  /**
   * The same work as the recovery's launches, directly: for each session the test agent spawned, ACP
   * {@code initialize} and {@code session/load} of its stored provider session answered, {@code
   * LAUNCH_CAP} at a time. The agents stay up until all are loaded, as the recovered ones do.
   */
  private Load.Result spawnInitializeAndLoad(List<String> sessionIds) throws Exception {
    List<String> tokens = sessionIds.stream().map(id -> cluster.identity(id).resumeToken()).toList();
    int perThread = tokens.size() / LAUNCH_CAP;
    List<Process> agents = Collections.synchronizedList(new ArrayList<>());
    try {
      return Load.run(LAUNCH_CAP, perThread,
          (thread, iteration) -> agents.add(loadedAgent(tokens.get(thread * perThread + iteration))));
    } finally {
      agents.forEach(Process::destroyForcibly);
    }
  }

  private Process loadedAgent(String token) {
    try {
      ProcessBuilder spawn = new ProcessBuilder("node", TestAgent.script().toString(),
          "--mode-file=" + cluster.agentModeFile()).redirectError(ProcessBuilder.Redirect.DISCARD);
      spawn.environment().put("KANDEV_TEST_AGENT_STATE_DIR", cluster.dir().resolve("agent-state").toString());
      spawn.environment().put("KANDEV_TEST_AGENT_LAUNCH_LOG", cluster.dir().resolve("direct-launches.jsonl").toString());
      Process agent = spawn.start();
      var in = agent.getOutputStream();
      var out = new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8));
      in.write("""
          {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}
          """.getBytes(StandardCharsets.UTF_8));
      in.flush();
      assertThat(answer(out, 1)).contains("\"loadSession\":true");
      in.write("""
          {"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"%s","cwd":"%s","mcpServers":[]}}
          """.formatted(token, cluster.dir().toAbsolutePath()).getBytes(StandardCharsets.UTF_8));
      in.flush();
      assertThat(answer(out, 2)).as("session/load of %s", token).contains("\"result\"").doesNotContain("\"error\"");
      return agent;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The agent's answer to request {@code id}; the session updates a load replays come before it. */
  private static String answer(BufferedReader out, int id) throws IOException {
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.contains("\"id\":" + id + ",") || line.contains("\"id\":" + id + "}")) {
        return line;
      }
    }
    throw new IllegalStateException("the agent closed its output before answering request " + id);
  }

  private static Instant at(com.google.protobuf.Timestamp time) {
    return Instant.ofEpochSecond(time.getSeconds(), time.getNanos());
  }
}
