package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.process.ProcessTrees;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.ActivityRun;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.LostLaunch;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.harness.RecoveryCluster.AgentEvent;
import dev.kandev.recovery.worker.harness.TestAgentFiles;
import dev.kandev.recovery.worker.interceptors.StepFreezeInterceptor;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The second launch adapter, polyglot, on the real dev server: the Java worker with
 * KANDEV_LAUNCH_ADAPTER=kandev-executor keeps the saga, and the Go launch worker ({@code
 * starters/go/cmd/kandev-launch-worker}, package {@code kandevlaunch} with its stand-in executor,
 * built here with {@code go build}) launches the test agent over ACP. Each case ends as
 * docs/contract.md promises for our agent host (WorkerFailoverIT, ResumeKilledAtEveryStepIT and the
 * launch failure tests show those): Start fresh, Resume, a failure before initialize, a cancel during
 * the launch, the Go worker SIGKILLed during the launch, the Java worker SIGKILLed between the launch
 * and the settle, the agent dying between the launch and the settle.
 */
public class KandevLaunchAdapterIT {
  private static final Path MODULE = Path.of("..", "starters", "go").toAbsolutePath().normalize();
  private static final String HOST = RecoveryCluster.HOST;
  private static final Duration RESUME = Duration.ofMinutes(1);
  private static final String FREEZE_QUEUE = "kandev-launch-freeze";

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();
  private final Map<String, Process> goWorkers = new HashMap<>();
  private Path binary;

  @AfterEach
  void stopGoWorkers() {
    goWorkers.values().forEach(ProcessTrees::kill);
  }

  @Test
  void theSagaOnJavaAndTheLaunchOnKandevsExecutorEndAsOurAgentHostsDo() throws Exception {
    binary = buildGoWorker();
    cluster.setting("KANDEV_LAUNCH_ADAPTER", "kandev-executor");
    cluster.setting("KANDEV_HOST_WAIT_SECONDS", "10");
    KandevProcess dev = cluster.dev("dev");
    assertThat(dev.output()).contains("launches by Kandev's executor (KANDEV_LAUNCH_ADAPTER=kandev-executor)");
    startGoWorker("go-1", RecoveryTaskQueue.DEFAULT);

    // Start fresh: session/new through the Go worker, the new token stored in both copies.
    cluster.newSession("s1", SessionState.CREATED);
    ResumeHandle fresh = cluster.start("s1", ResumeMode.START_FRESH);
    ResumeResult created = fresh.await(RESUME);
    assertThat(created.outcome().name()).isEqualTo("STARTED_FRESH");
    assertThat(created.loaded()).isFalse();
    String token = created.providerSessionId();
    assertThat(token).isNotBlank();
    assertThat(cluster.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(cluster.state("s1")).isEqualTo(SessionState.WAITING_FOR_INPUT);
    ActivityRun launch = launchOf(fresh);
    assertThat(launch.taskQueue()).isEqualTo(RecoveryTaskQueue.launchesOf(RecoveryTaskQueue.DEFAULT, HOST));
    assertThat(launch.worker()).as("the Go worker ran the launch, not dev").isEqualTo("go-1");
    ExecutorRecord agent = cluster.executor("s1").orElseThrow();
    assertThat(agent.workerInstance()).isEqualTo("go-1");
    assertThat(agent.status()).isEqualTo("running");

    // Resume: the stored token loaded by a new agent, RESUMED.
    crash("s1");
    ResumeResult resumed = cluster.start("s1", ResumeMode.RESUME).await(RESUME);
    assertThat(resumed.outcome().name()).isEqualTo("RESUMED");
    assertThat(resumed.loaded()).isTrue();
    assertThat(resumed.providerSessionId()).isEqualTo(token);
    assertThat(cluster.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(cluster.agentEvents()).filteredOn(e -> e.event().equals("session") && token.equals(e.sessionId()))
        .extracting(AgentEvent::loaded).containsExactly(false, true);

    // A failure before initialize: AGENT_EXITED_BEFORE_INITIALIZE, the token kept, FAILED again.
    crash("s1");
    cluster.agentMode("exit-before-initialize");
    ResumeFailure early = RecoveryCluster.awaitFailure(cluster.start("s1", ResumeMode.RESUME), RESUME);
    cluster.agentMode("normal");
    assertThat(early.step()).isEqualTo(ResumeStep.LAUNCH_AGENT);
    assertThat(early.failureType()).isEqualTo(FailureType.AGENT_EXITED_BEFORE_INITIALIZE.type());
    assertThat(early.sessionState()).isEqualTo(SessionState.FAILED);
    assertThat(early.recoveryActions()).containsExactly(ResumeMode.RESUME, ResumeMode.START_FRESH);
    assertRestored("s1", token);

    // Cancelled while its agent is in ACP initialize: the Go worker learns it from a heartbeat's answer,
    // stops the half-started agent, and the compensation's StopAgent runs on the Go worker too.
    cluster.agentMode("hold-initialize");
    ResumeHandle cancelled = cluster.start("s1", ResumeMode.RESUME);
    long cancelledPid = cluster.awaitAgentStarting("s1").pid();
    cancelled.cancel();
    Await.until(() -> !cancelled.isRunning(), RESUME, "the cancelled resume to end");
    assertRestored("s1", token);
    assertThat(ProcessHandle.of(cancelledPid).map(ProcessHandle::isAlive).orElse(false))
        .as("the cancelled launch's agent (pid %d) alive", cancelledPid).isFalse();
    assertThat(TestStores.claimsLiveProcess(cluster.executor("s1").orElseThrow())).isFalse();
    ActivityRun stop = cluster.activities(cancelled.workflowId(), cancelled.runId()).stream()
        .filter(run -> run.type().equals("StopAgent")).findFirst().orElseThrow();
    assertThat(stop.taskQueue()).isEqualTo(RecoveryTaskQueue.ofHost(RecoveryTaskQueue.DEFAULT, HOST));
    assertThat(stop.worker()).isEqualTo("go-1");

    // The Go worker SIGKILLed while its agent is in ACP initialize: the launch's heartbeat times out.
    cluster.agentMode("hold-initialize");
    ResumeHandle held = cluster.start("s1", ResumeMode.RESUME);
    long heldPid = cluster.awaitAgentStarting("s1").pid();
    killGoWorker("go-1");
    cluster.agentMode("normal");
    ResumeFailure lost = RecoveryCluster.awaitFailure(held, RESUME);
    LostLaunch.assertFailedOnItsHeartbeat(lost);
    assertRestored("s1", token);
    Await.until(() -> !ProcessHandle.of(heldPid).map(ProcessHandle::isAlive).orElse(false), Duration.ofSeconds(10),
        "the held agent (pid " + heldPid + ") to die with its Go worker");
    assertThat(TestStores.claimsLiveProcess(cluster.executor("s1").orElseThrow()))
        .as("the compensation withdrew the killed worker's launch").isFalse();
    startGoWorker("go-2", RecoveryTaskQueue.DEFAULT);
    assertThat(read(cluster.logDir().resolve("go-2.log"))).contains("Predecessor  go-1 (pid");
    assertThat(cluster.fixtures.count("SELECT count(*) FROM worker_presence WHERE worker_instance = ?", "go-1"))
        .as("the killed Go worker's presence, removed by its successor").isZero();
    ResumeResult afterKill = cluster.start("s1", ResumeMode.RESUME).await(RESUME);
    assertThat(afterKill.providerSessionId()).isEqualTo(token);
    assertThat(afterKill.loaded()).isTrue();
    assertThat(cluster.executor("s1").orElseThrow().workerInstance()).isEqualTo("go-2");

    // The Java worker SIGKILLed between the launch and the settle (STARTING, the lease and the launch
    // done): the agent is the Go worker's and lives on, so the next Java worker carries the run on and
    // settles it: RESUMED, that same agent process, no second one.
    crash("s1");
    Path freezeFile = cluster.dir().resolve("freeze-steps");
    freezeAt(freezeFile, "s1 SettleSession before");
    cluster.setting("KANDEV_TASK_QUEUE", FREEZE_QUEUE);
    startGoWorker("go-q", FREEZE_QUEUE);
    Map<String, String> freezing = Map.of("JAVA_TOOL_OPTIONS", "-D" + StepFreezeInterceptor.PROPERTY + "=" + freezeFile);
    KandevProcess frozen = cluster.worker("java-a", freezing);
    ResumeClient frozenQueue = new ResumeClient(cluster.client(), FREEZE_QUEUE);
    ResumeHandle saga = frozenQueue.start(new ResumeRequest("s1", ResumeMode.RESUME, "user", "it"));
    Await.until(() -> frozen.output().contains("FROZEN s1 SettleSession before"), RESUME, "java-a to freeze before the settle");
    assertThat(cluster.state("s1")).isEqualTo(SessionState.STARTING);
    ExecutorRecord launched = cluster.executor("s1").orElseThrow();
    assertThat(launched.workerInstance()).isEqualTo("go-q");
    assertThat(launched.status()).isEqualTo("running");
    int startsBeforeKill = agentStarts();
    cluster.kill("java-a");
    freezeAt(freezeFile, "");
    KandevProcess next = cluster.worker("java-b", freezing);
    ResumeResult settled = saga.await(RESUME);
    assertThat(settled.outcome().name()).isEqualTo("RESUMED");
    assertThat(settled.providerSessionId()).isEqualTo(token);
    assertThat(cluster.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(cluster.state("s1")).isEqualTo(SessionState.WAITING_FOR_INPUT);
    assertThat(cluster.lockHeld("s1")).isFalse();
    ExecutorRecord serving = cluster.executor("s1").orElseThrow();
    assertThat(serving.pid()).isEqualTo(launched.pid());
    assertThat(serving.status()).isEqualTo("running");
    assertThat(ProcessHandle.of(launched.pid()).map(ProcessHandle::isAlive).orElse(false)).isTrue();
    assertThat(agentStarts()).as("no second agent process").isEqualTo(startsBeforeKill);

    // The agent dies on its own between the launch and the settle while its Go worker lives: the Go
    // worker records the exit, the settle finds the agent gone: AGENT_LOST at SETTLE_SESSION, restored.
    crash("s1");
    freezeAt(freezeFile, "s1 SettleSession before");
    ResumeHandle settling = frozenQueue.start(new ResumeRequest("s1", ResumeMode.RESUME, "user", "it"));
    Await.until(() -> next.output().contains("FROZEN s1 SettleSession before"), RESUME, "java-b to freeze before the settle");
    ExecutorRecord dying = cluster.executor("s1").orElseThrow();
    assertThat(dying.status()).isEqualTo("running");
    ProcessHandle.of(dying.pid()).ifPresent(ProcessHandle::destroyForcibly);
    Await.until(() -> !TestStores.claimsLiveProcess(cluster.executor("s1").orElseThrow()), Duration.ofSeconds(10),
        "the Go worker to record the agent's exit");
    freezeAt(freezeFile, "");
    ResumeFailure agentLost = RecoveryCluster.awaitFailure(settling, RESUME);
    assertThat(agentLost.step()).isEqualTo(ResumeStep.SETTLE_SESSION);
    assertThat(agentLost.failureType()).isEqualTo(FailureType.AGENT_LOST.type());
    assertRestored("s1", token);
  }

  /** Replaces the freeze file whole (a frozen step goes on once its line is gone, so no reader may see half). */
  private static void freezeAt(Path freezeFile, String line) throws IOException {
    Path next = freezeFile.resolveSibling("freeze-steps.next");
    Files.writeString(next, line.isEmpty() ? "" : line + "\n");
    Files.move(next, freezeFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The session as a failed resume leaves it: FAILED, its token in both copies, the lock released. */
  private void assertRestored(String sessionId, String token) {
    assertThat(cluster.state(sessionId)).isEqualTo(SessionState.FAILED);
    assertThat(cluster.identity(sessionId)).isEqualTo(new SessionIdentity(token, token));
    assertThat(cluster.lockHeld(sessionId)).isFalse();
  }

  /**
   * The session's agent crashes (SIGKILL), as in Kandev: its executor records the exit and the session
   * becomes FAILED with its token, ready for a Resume.
   */
  private void crash(String sessionId) {
    long pid = cluster.executor(sessionId).orElseThrow().pid();
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    Await.until(() -> !TestStores.claimsLiveProcess(cluster.executor(sessionId).orElseThrow()), Duration.ofSeconds(10),
        "the Go worker to record the exit of the agent of " + sessionId);
    assertThat(cluster.tx(h -> cluster.sessions().transition(h, sessionId, Set.of(SessionState.WAITING_FOR_INPUT),
        SessionState.FAILED, "test", "agent process exited", Fence.none())).won()).isTrue();
  }

  private int agentStarts() {
    return (int) cluster.agentEvents().stream().filter(e -> e.event().equals("start")).count();
  }

  private ActivityRun launchOf(ResumeHandle resume) {
    return cluster.activities(resume.workflowId(), resume.runId()).stream()
        .filter(run -> run.type().equals("LaunchAgent")).findFirst().orElseThrow();
  }

  private Path buildGoWorker() throws Exception {
    Path out = cluster.dir().resolve("kandev-launch-worker");
    Path log = cluster.logDir().resolve("go-build.log");
    Files.createDirectories(log.getParent());
    Process build = new ProcessBuilder("go", "build", "-o", out.toString(), "./cmd/kandev-launch-worker")
        .directory(MODULE.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    boolean ended = build.waitFor(5, TimeUnit.MINUTES);
    if (!ended) {
      ProcessTrees.kill(build);
    }
    assertThat(ended && build.exitValue() == 0).as("go build in %s:%n%s", MODULE, read(log)).isTrue();
    return out;
  }

  /** Starts the Go launch worker as instance {@code instance} of host it-host on {@code queue}; returns once it polls. */
  private void startGoWorker(String instance, String queue) throws Exception {
    Path agents = new TestAgentFiles(cluster.dir()).profile("agents-go.json", HOST);
    Path log = cluster.logDir().resolve(instance + ".log");
    ProcessBuilder builder = new ProcessBuilder(binary.toString()).redirectErrorStream(true).redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().putAll(Map.of(
        "TEMPORAL_ADDRESS", cluster.temporalAddress(),
        "KANDEV_TASK_QUEUE", queue,
        "KANDEV_HOST", HOST,
        "KANDEV_WORKER_INSTANCE", instance,
        "KANDEV_LAUNCH_DB_URL", GoStarterIT.postgresUrl(cluster.schema()),
        "KANDEV_AGENTS_FILE", agents.toString(),
        // one state folder per queue: a successor on the queue takes its killed predecessor for gone at once
        "KANDEV_STATE_DIR", cluster.dir().resolve("state-go-" + queue).toString()));
    Process process = builder.start();
    goWorkers.put(instance, process);
    Await.until(() -> read(log).contains("Ready.") || !process.isAlive(), Duration.ofSeconds(30), instance + " to be ready");
    assertThat(process.isAlive()).as("%s:%n%s", instance, read(log)).isTrue();
  }

  /** {@code kill -9} of the Go worker: its agents die with it (their stdin closes, their parent-death signal fires). */
  private void killGoWorker(String instance) throws InterruptedException {
    Process process = goWorkers.remove(instance);
    process.destroyForcibly(); // SIGKILL
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
