package dev.kandev.recovery.activities.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.AgentProcessStore;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Finding 10 of docs/reliability.md: the agent a stopped worker of this host left for the session is
 * stopped by the worker that launches the session's agent again, before the new agent starts; a
 * pid that belongs to another process now is never signalled. Real processes throughout: the test
 * agent under node, a {@code sh} standing for the stopped worker (SIGSTOP), {@code /proc} sampled.
 */
class EarlierAgentStopperTest {
  private static final String SESSION = "s-1";
  private static final String STOPPED_WORKER = "worker-2";

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final AcpHarness harness = new AcpHarness(db);
  private final AgentProcessStore processes = new AgentProcessStore();
  private final List<Process> started = new ArrayList<>();
  /** Whether the earlier agent still ran when the new launch chose its command, just before its spawn. */
  private final AtomicBoolean earlierRanAtSpawn = new AtomicBoolean();
  private volatile ProcessHandle earlier;

  @BeforeEach
  void session() {
    db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", "test-agent", SessionState.STARTING, "{}");
    harness.start(AgentProfiles.of(TestAgent.profile("normal", harness.stateDir)), AcpHarness.TIMEOUTS,
        PermissionPolicy.ALLOW, profile -> {
          ProcessHandle e = earlier;
          earlierRanAtSpawn.set(e != null && EarlierAgentStopper.running(e));
          return profile.argv();
        });
  }

  @AfterEach
  void cleanUp() throws IOException, InterruptedException {
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      new ProcessBuilder("kill", "-CONT", Long.toString(p.pid())).start().waitFor();
      p.destroyForcibly();
      p.waitFor();
    }
  }

  @Test
  void theAgentAStoppedWorkerOfThisHostLeftIsStoppedBeforeTheNewOneStarts() throws Exception {
    long orphan = agentUnderAStoppedParent();
    earlier = ProcessHandle.of(orphan).orElseThrow();
    recordAsLaunchedBy(STOPPED_WORKER, "execution-of-the-stopped-worker", orphan, earlier.info().startInstant().orElseThrow());
    assertThat(agentsOfTheSession()).containsExactly(orphan);

    int mostAtOnce = sampledWhile(() -> harness.launch(SESSION));

    assertThat(mostAtOnce).as("most agent processes of the session at one /proc sample").isEqualTo(1);
    assertThat(earlierRanAtSpawn).as("the earlier agent ran when the new one was spawned").isFalse();
    assertThat(EarlierAgentStopper.running(earlier)).isFalse();
    long current = harness.executor(SESSION).pid();
    assertThat(agentsOfTheSession()).containsExactly(current);
    assertThat(recordedExecutions()).containsExactly(harness.executor(SESSION).agentExecutionId());
  }

  @Test
  void theAgentOfAnotherWorkerOfThisHostIsStoppedAndThatWorkerThenStopsNothing() throws InterruptedException {
    AgentHost other = new AgentHost(new AgentHostSettings(AcpHarness.HOST, STOPPED_WORKER,
        AgentProfiles.of(TestAgent.profile("normal", harness.stateDir)), AcpHarness.TIMEOUTS, PermissionPolicy.ALLOW,
        AgentHostSettings.inheritedFrom(System.getenv()), AgentProfile::argv),
        db.transactions(), harness.identities, harness.executors, harness.transcripts);
    try {
      long first = other.launch(new LaunchRequest(SESSION, "test-agent", harness.workspace, Map.of(), Fence.none())).pid();
      earlier = ProcessHandle.of(first).orElseThrow();

      int mostAtOnce = sampledWhile(() -> harness.launch(SESSION));

      assertThat(earlierRanAtSpawn).isFalse();
      assertThat(mostAtOnce).isEqualTo(1);
      Await.until(() -> !other.isRunning(SESSION), Duration.ofSeconds(10), "the other worker saw its agent end");
      UnownedAgentReaper otherReaper = new UnownedAgentReaper(other, db.transactions(),
          new MirrorSessionStore(Json.mapper()), harness.executors);
      assertThat(otherReaper.reapOnce()).isEmpty();
      assertThat(harness.host.isRunning(SESSION)).isTrue();
      assertThat(harness.executor(SESSION).workerInstance()).isEqualTo(AcpHarness.INSTANCE);
      assertThat(harness.executor(SESSION).status()).isEqualTo("running");
      assertThat(recordedExecutions()).containsExactly(harness.executor(SESSION).agentExecutionId());
    } finally {
      other.close();
    }
  }

  @Test
  void aRecordedPidThatAnotherProcessHasNowIsNotSignalled() throws Exception {
    Process other = started(new ProcessBuilder("sleep", "600").start());
    Instant otherStart = other.toHandle().info().startInstant().orElseThrow();
    recordAsLaunchedBy(STOPPED_WORKER, "execution-whose-pid-was-reused", other.pid(), otherStart.minusSeconds(5));

    harness.launch(SESSION);

    assertThat(other.isAlive()).as("the process that has the pid now").isTrue();
    assertThat(harness.host.isRunning(SESSION)).isTrue();
    assertThat(recordedExecutions()).as("the stale record is forgotten")
        .containsExactly(harness.executor(SESSION).agentExecutionId());
  }

  @Test
  void aRecordWithoutAStartInstantIsNeverSignalled() throws Exception {
    Process other = started(new ProcessBuilder("sleep", "600").start());
    recordAsLaunchedBy(STOPPED_WORKER, "execution-of-an-older-release", other.pid(), null);

    harness.launch(SESSION);

    assertThat(other.isAlive()).isTrue();
    assertThat(harness.host.isRunning(SESSION)).isTrue();
  }

  @Test
  void anEarlierAgentRecordedOnAnotherHostIsNotTouched() throws Exception {
    Process other = started(new ProcessBuilder("sleep", "600").start());
    db.run(h -> processes.record(h, new AgentProcessStore.AgentProcess(SESSION, "execution-on-another-host",
        "another-host", STOPPED_WORKER, other.pid(), other.toHandle().info().startInstant().orElseThrow())));

    harness.launch(SESSION);

    assertThat(other.isAlive()).isTrue();
  }

  @Test
  void theReaperForgetsTheRecordsOfProcessesThatEndedUnrecordedAndKeepsTheLiveOnes() throws Exception {
    Process ended = started(new ProcessBuilder("true").start());
    Instant endedStart = ended.toHandle().info().startInstant().orElse(Instant.EPOCH);
    ended.waitFor();
    Process live = started(new ProcessBuilder("sleep", "600").start());
    Instant liveStart = live.toHandle().info().startInstant().orElseThrow();
    Process reused = started(new ProcessBuilder("sleep", "600").start());
    Process unknown = started(new ProcessBuilder("sleep", "600").start());
    recordAsLaunchedBy(STOPPED_WORKER, "ended", ended.pid(), endedStart);
    recordAsLaunchedBy(STOPPED_WORKER, "live", live.pid(), liveStart);
    recordAsLaunchedBy(STOPPED_WORKER, "reused", reused.pid(), liveStart.minusSeconds(60));
    recordAsLaunchedBy(STOPPED_WORKER, "unknown-start", unknown.pid(), null);

    new UnownedAgentReaper(harness.host, db.transactions(), new MirrorSessionStore(Json.mapper()), harness.executors)
        .reapOnce();

    assertThat(recordedExecutions()).containsExactlyInAnyOrder("live", "unknown-start");
    assertThat(Stream.of(live, reused, unknown).allMatch(Process::isAlive)).as("nothing signalled").isTrue();
  }

  /**
   * The test agent, launched for the session in its workspace by a {@code sh} that then stops itself
   * (SIGSTOP), as a worker stopped in the fault campaign: the agent is that stopped process's child,
   * and once killed stays a zombie until the parent continues.
   */
  private long agentUnderAStoppedParent() throws IOException {
    String agent = String.join(" ", TestAgent.profile("normal", harness.stateDir).argv().stream()
        .map(a -> "'" + a + "'").toList());
    // The agent's stdin is a pipe from a sleep (a closed stdin would end it); $! is the agent.
    ProcessBuilder builder = new ProcessBuilder("sh", "-c", "sleep 600 | " + agent + " & echo $!; kill -STOP $$; wait");
    builder.directory(harness.workspace.toFile());
    builder.environment().put("KANDEV_TEST_AGENT_STATE_DIR", harness.stateDir.toString());
    builder.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process parent = started(builder.start());
    long pid = Long.parseLong(new BufferedReader(new InputStreamReader(parent.getInputStream(), UTF_8)).readLine().trim());
    Await.until(() -> stateOf(parent.pid()) == 'T', Duration.ofSeconds(10), "the parent stopped itself");
    Await.until(() -> agentsOfTheSession().contains(pid), Duration.ofSeconds(10), "the earlier agent runs");
    return pid;
  }

  private void recordAsLaunchedBy(String worker, String executionId, long pid, Instant startedAt) {
    new AgentExecutions(db.transactions(), harness.executors, processes, AcpHarness.HOST, worker)
        .starting(SESSION, executionId, pid, startedAt);
  }

  private List<String> recordedExecutions() {
    return db.tx(h -> processes.onHost(h, SESSION, AcpHarness.HOST)).stream()
        .map(AgentProcessStore.AgentProcess::executionId).toList();
  }

  private Process started(Process p) {
    started.add(p);
    return p;
  }

  /** Runs {@code action} while sampling {@code /proc}; returns the most agents of the session seen at one sample. */
  private int sampledWhile(Runnable action) throws InterruptedException {
    AtomicBoolean sampling = new AtomicBoolean(true);
    AtomicInteger most = new AtomicInteger();
    AtomicInteger samples = new AtomicInteger();
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        most.accumulateAndGet(agentsOfTheSession().size(), Math::max);
        samples.incrementAndGet();
      }
    }, "proc-sampler");
    sampler.start();
    try {
      action.run();
      int before = samples.get();
      Await.until(() -> samples.get() > before + 1, Duration.ofSeconds(5), "a sample after the launch");
    } finally {
      sampling.set(false);
      sampler.join();
    }
    return most.get();
  }

  /** The live (not zombie) test agent processes whose working directory is the session's workspace, from /proc. */
  private Set<Long> agentsOfTheSession() {
    String script = TestAgent.script().toString();
    try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
      return entries.filter(e -> e.getFileName().toString().chars().allMatch(Character::isDigit))
          .filter(e -> {
            try {
              List<String> argv = List.of(new String(Files.readAllBytes(e.resolve("cmdline")), UTF_8).split("\0"));
              long pid = Long.parseLong(e.getFileName().toString());
              char state = stateOf(pid);
              return argv.contains(script) && state != 'Z' && state != 'X' && state != '?'
                  && Files.readSymbolicLink(e.resolve("cwd")).equals(harness.workspace.toRealPath());
            } catch (IOException | RuntimeException gone) {
              return false;
            }
          })
          .map(e -> Long.parseLong(e.getFileName().toString()))
          .collect(Collectors.toUnmodifiableSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static char stateOf(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2);
    } catch (IOException | RuntimeException e) {
      return '?';
    }
  }
}
