package dev.kandev.recovery.activities.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.store.TranscriptEntry;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.AgentFailureClass;
import dev.kandev.recovery.workflows.model.SessionState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The host after a launch: prompt turns and their lifecycle, cancel, stop, agents dying on their own. */
class AcpAgentHostTest {
  private static final String SESSION = "s-1";
  private static final String TASK = "t-1";

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final AcpHarness harness = new AcpHarness(db);
  private String token;

  private LaunchResult launched(String mode, String... flags) {
    harness.start(TestAgent.profile(mode, harness.stateDir, flags));
    db.fixtures().task(TASK, "ws-1", "REVIEW").session(SESSION, TASK, "test-agent", SessionState.STARTING, "{}");
    LaunchResult result = harness.launch(SESSION);
    token = result.providerSessionId();
    db.fixtures().exec("UPDATE task_sessions SET state = 'WAITING_FOR_INPUT' WHERE id = ?", SESSION);
    return result;
  }

  private String sessionState() {
    return db.fixtures().string("SELECT state FROM task_sessions WHERE id = ?", SESSION);
  }

  private String taskState() {
    return db.fixtures().string("SELECT state FROM tasks WHERE id = ?", TASK);
  }

  @Test
  void promptTurnRunsThroughRunningAndPersistsTheResponseBeforeTheSessionSettles() {
    launched("normal");

    TurnResult turn = harness.turns.prompt(SESSION, "fix the bug");

    assertThat(turn.stopReason()).isEqualTo("end_turn");
    assertThat(turn.responseText()).isEqualTo("Working on: fix the bug");
    assertThat(turn.messagesPersisted()).isEqualTo(2);
    assertThat(sessionState()).isEqualTo("WAITING_FOR_INPUT");
    assertThat(taskState()).isEqualTo("REVIEW");
    assertThat(db.fixtures().string(
            "SELECT string_agg(from_state || '>' || to_state, ',' ORDER BY id) FROM session_events"))
        .isEqualTo("WAITING_FOR_INPUT>RUNNING,RUNNING>WAITING_FOR_INPUT");
    assertThat(db.fixtures().count(
        "SELECT count(*) FROM session_messages m, session_events e WHERE e.to_state = 'WAITING_FOR_INPUT'"
            + " AND m.role = 'agent' AND m.created_at <= e.at"))
        .as("the response row was committed before the settling transition").isEqualTo(1);
    assertThat(db.tx((Handle h) -> TestStores.transcript(h, SESSION))).extracting(TranscriptEntry::content)
        .containsExactly("fix the bug", "Working on: fix the bug");
  }

  @Test
  void promptNeedsASessionWaitingForInput() {
    launched("normal");
    db.fixtures().exec("UPDATE task_sessions SET state = 'RUNNING' WHERE id = ?", SESSION);

    assertThatThrownBy(() -> harness.turns.prompt(SESSION, "hi"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("is RUNNING");
    assertThat(harness.messages(SESSION)).isZero();
  }

  @Test
  void cancelTurnEndsASlowTurnWithStopReasonCancelled() throws Exception {
    launched("slow-turn");
    CompletableFuture<TurnResult> turn = CompletableFuture.supplyAsync(() -> harness.turns.prompt(SESSION, "slow"));
    Await.until(this::sessionState, "RUNNING"::equals, Duration.ofSeconds(15), "the turn to be running");
    Await.until(this::taskState, "IN_PROGRESS"::equals, Duration.ofSeconds(15), "the first chunk (the task IN_PROGRESS)");

    harness.turns.cancelTurn(SESSION);

    TurnResult result = turn.get(15, TimeUnit.SECONDS);
    assertThat(result.stopReason()).isEqualTo("cancelled");
    assertThat(sessionState()).isEqualTo("WAITING_FOR_INPUT");
    assertThat(taskState()).isEqualTo("REVIEW");
    assertThat(harness.host.isRunning(SESSION)).isTrue();
  }

  @Test
  void crashMidTurnIsRecordedAndTheSessionSettlesWithTheErrorKeepingTheToken() throws Exception {
    LaunchResult launch = launched("crash-mid-turn");

    AgentTurnException e = catchThrowableOfType(AgentTurnException.class, () -> harness.turns.prompt(SESSION, "boom"));

    assertThat(e.exitCode()).isEqualTo(5);
    assertThat(e.stderrTail()).contains("crashing mid-turn as configured");
    assertThat(sessionState()).isEqualTo("WAITING_FOR_INPUT");
    assertThat(db.fixtures().string("SELECT error_message FROM task_sessions WHERE id = ?", SESSION))
        .contains("transport closed during the turn");
    assertThat(taskState()).isEqualTo("REVIEW");
    assertThat(db.tx((Handle h) -> TestStores.transcript(h, SESSION))).extracting(TranscriptEntry::content)
        .containsExactly("boom", "Working on: ");
    Await.until(() -> harness.executor(SESSION).status(), "failed"::equals, Duration.ofSeconds(15),
        "the exit to be recorded");
    ExecutorRecord executor = harness.executor(SESSION);
    assertThat(executor.pid()).isNull();
    assertThat(executor.errorMessage()).contains("exited on its own with code 5");
    assertThat(harness.host.isRunning(SESSION)).isFalse();
    assertThat(ProcessHandle.of(launch.pid())).isEmpty();
    harness.assertTokenUnchanged(SESSION, token);
  }

  @Test
  void agentDyingOnItsOwnIsRecordedForRecoveryAndReaped() throws Exception {
    LaunchResult launch = launched("normal");

    ProcessHandle.of(launch.pid()).orElseThrow().destroyForcibly();

    Await.until(() -> harness.executor(SESSION).status(), "failed"::equals, Duration.ofSeconds(15),
        "the exit to be recorded");
    assertThat(harness.executor(SESSION).pid()).isNull();
    assertThat(harness.executor(SESSION).errorMessage()).contains("exited on its own with code 137");
    assertThat(db.tx((Handle h) -> TestStores.claimedBy(h, AcpHarness.HOST, AcpHarness.INSTANCE))).isEmpty();
    assertThat(harness.host.isRunning(SESSION)).isFalse();
    harness.assertTokenUnchanged(SESSION, token);
    assertThatThrownBy(() -> harness.turns.prompt(SESSION, "hi")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void stopEndsTheAgentRecordsStoppedAndIsIdempotent() {
    LaunchResult launch = launched("normal");
    assertThat(db.tx((Handle h) -> TestStores.claimedBy(h, AcpHarness.HOST, AcpHarness.INSTANCE))).hasSize(1);

    harness.host.stop(SESSION);
    harness.host.stop(SESSION);
    harness.host.stop("never-launched");

    assertThat(harness.host.isRunning(SESSION)).isFalse();
    assertThat(ProcessHandle.of(launch.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThat(harness.executor(SESSION).status()).isEqualTo("stopped");
    assertThat(harness.executor(SESSION).pid()).isNull();
    harness.assertTokenUnchanged(SESSION, token);
  }


  /** The worker's cap on running agents learns of each stop: by the worker, or on the agent's own. */
  @Test
  void stopListenersHearOfEveryAgentThatStopsHoweverItStops() throws Exception {
    LaunchResult first = launched("normal");
    List<String> stopped = new java.util.concurrent.CopyOnWriteArrayList<>();
    harness.host.onAgentStopped((sessionId, executionId) -> stopped.add(sessionId + "/" + executionId));

    harness.host.stop(SESSION);
    harness.host.stop(SESSION);
    assertThat(stopped).containsExactly(SESSION + "/" + first.executionId());

    LaunchResult second = harness.launch(SESSION);
    ProcessHandle.of(second.pid()).orElseThrow().destroyForcibly();
    Await.until(stopped::size, n -> n == 2, Duration.ofSeconds(15), "the exit to be heard of");
    assertThat(stopped).containsExactly(SESSION + "/" + first.executionId(), SESSION + "/" + second.executionId());
    assertThat(harness.host.runningExecutions()).isEmpty();
  }

  /** A terminal's Ctrl-C goes to the worker's process group: the agent must not be in it (the worker stops it). */
  @Test
  void theAgentRunsInAProcessSessionOfItsOwnWithTheRecordedPid() throws Exception {
    LaunchResult launch = launched("normal");

    List<String> agent = procStat(launch.pid());
    List<String> worker = procStat(ProcessHandle.current().pid());
    assertThat(agent.get(0)).as("setsid execs the agent in place: the recorded pid is the agent's")
        .contains("node");
    assertThat(agent.get(3)).as("session id").isEqualTo(Long.toString(launch.pid())).isNotEqualTo(worker.get(3));
    assertThat(agent.get(2)).as("process group").isEqualTo(Long.toString(launch.pid())).isNotEqualTo(worker.get(2));
    assertThat(harness.executor(SESSION).pid()).isEqualTo(launch.pid());
  }

  /** comm, state, pgrp and session of a process, from /proc/PID/stat. */
  private static List<String> procStat(long pid) throws java.io.IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return List.of(comm, rest[0], rest[2], rest[3]);
  }
  /**
   * A worker that stops does not leave an agent in its handshake behind (it runs in a session of its
   * own, so the worker's exit would not end it): close() ends the launch as a stop does.
   */
  @Test
  void closingTheHostEndsALaunchStillInItsHandshake() throws Exception {
    HeldLaunch held = launchHeldInInitialize();

    CompletableFuture<Void> close = CompletableFuture.runAsync(harness.host::close);

    close.get(5, TimeUnit.SECONDS); // not after the initialize timeout (15 s here)
    assertThat(ProcessHandle.of(held.pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    AgentLaunchException failure = catchThrowableOfType(AgentLaunchException.class,
        () -> unwrap(held.launch, Duration.ofSeconds(5)));
    assertThat(failure).as("the launch fails").isNotNull();
    assertThat(harness.host.isRunning(SESSION)).isFalse();
    assertThat(harness.executor(SESSION).status()).isEqualTo("failed");
  }

  @Test
  void anAgentWhoseHandshakeEndsAfterALaterLaunchTookItsPlaceIsStopped() throws Exception {
    HeldLaunch held = launchHeldInInitialize();

    db.fixtures().exec("UPDATE executors_running SET agent_execution_id = 'later-launch', status = 'running'"
        + " WHERE session_id = ?", SESSION);

    AgentLaunchException failure = held.release();
    assertThat(failure.getMessage()).contains("a later launch took its place");
    assertThat(harness.executor(SESSION).agentExecutionId()).isEqualTo("later-launch");
    assertThat(harness.executor(SESSION).status()).as("the later launch's row is left alone").isEqualTo("running");
  }

  @Test
  void stopEndsALaunchStillInItsHandshakeAtOnce() throws Exception {
    HeldLaunch held = launchHeldInInitialize();

    CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> harness.host.stop(SESSION));

    // A cancelled resume stops its launch: not after the initialize timeout (15 s here), at once.
    stop.get(5, TimeUnit.SECONDS);
    assertThat(ProcessHandle.of(held.pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    AgentLaunchException failure = catchThrowableOfType(AgentLaunchException.class,
        () -> unwrap(held.launch, Duration.ofSeconds(5)));
    assertThat(failure).as("the launch fails").isNotNull();
    assertThat(harness.host.isRunning(SESSION)).isFalse();
    assertThat(harness.executor(SESSION).status()).isEqualTo("failed");
    assertThat(harness.executor(SESSION).pid()).isNull();
  }

  /**
   * The resume gave up on the launch while its worker was stalled mid-handshake (its launch step
   * timed out and was compensated elsewhere: session restored, lock released): when the handshake
   * completes, the late result does not take the session over.
   */
  @Test
  void anAgentWhoseHandshakeEndsAfterItsResumeGaveUpIsStopped() throws Exception {
    db.fixtures().task(TASK, "ws-1", "REVIEW").session(SESSION, TASK, "test-agent", SessionState.FAILED, "{}");
    db.fixtures().storedToken(SESSION, "sess_kept");
    Files.writeString(harness.stateDir.resolve("sess_kept.json"),
        "{\"id\": \"sess_kept\", \"cwd\": \"" + harness.workspace + "\", \"messages\": []}");
    ResumeLockStore locks = new ResumeLockStore();
    SessionStore sessions = new MirrorSessionStore(Json.mapper());
    Fence fence = db.tx(h -> locks.acquire(h, SESSION, "resume-1", Duration.ofMinutes(5))).orElseThrow().fence();
    db.tx(h -> sessions.transition(h, SESSION, Set.of(SessionState.FAILED), SessionState.STARTING, "resume", "", fence));
    HeldLaunch held = launchHeldInInitialize(fence);

    db.tx(h -> sessions.transition(h, SESSION, Set.of(SessionState.STARTING), SessionState.FAILED, "resume rolled back", "", fence));
    db.tx(h -> locks.release(h, SESSION, "resume-1"));

    AgentLaunchException failure = held.release();
    assertThat(failure.getMessage()).contains("the resume that asked for it gave up on it");
    assertThat(harness.executor(SESSION).status()).isEqualTo("failed");
    assertThat(sessionState()).isEqualTo("FAILED");
    harness.assertTokenUnchanged(SESSION, "sess_kept");
  }

  /**
   * Another writer (Kandev's boot) settled the session at WAITING_FOR_INPUT while the agent was in its
   * handshake: the launch lost a race, which it says (not an agent failure), and its agent is stopped.
   */
  @Test
  void anAgentWhoseSessionAnotherWriterMovedDuringItsHandshakeIsStoppedAsALostRace() throws Exception {
    db.fixtures().task(TASK, "ws-1", "REVIEW").session(SESSION, TASK, "test-agent", SessionState.FAILED, "{}");
    ResumeLockStore locks = new ResumeLockStore();
    SessionStore sessions = new MirrorSessionStore(Json.mapper());
    Fence fence = db.tx(h -> locks.acquire(h, SESSION, "resume-1", Duration.ofMinutes(5))).orElseThrow().fence();
    db.tx(h -> sessions.transition(h, SESSION, Set.of(SessionState.FAILED), SessionState.STARTING, "resume", "", fence));
    HeldLaunch held = launchHeldInInitialize(fence);

    db.fixtures().exec("UPDATE task_sessions SET state = 'WAITING_FOR_INPUT' WHERE id = ?", SESSION);

    Files.writeString(held.modeFile, "normal");
    Throwable failure = catchThrowable(() -> unwrap(held.launch, Duration.ofSeconds(15)));
    assertThat(failure).isInstanceOf(SessionLeftStartingException.class)
        .hasMessageContaining("became WAITING_FOR_INPUT during the launch");
    assertThat(harness.host.isRunning(SESSION)).isFalse();
    Await.until(() -> !ProcessHandle.of(held.pid).map(ProcessHandle::isAlive).orElse(false), Duration.ofSeconds(10),
        "the agent process to end");
    assertThat(harness.executor(SESSION).status()).isEqualTo("failed");
    assertThat(sessionState()).isEqualTo("WAITING_FOR_INPUT");
  }

  /** Another worker ran the resume's StopAgent compensation and withdrew the launch: the same. */
  @Test
  void anAgentWhoseLaunchWasWithdrawnDuringItsHandshakeIsStopped() throws Exception {
    db.fixtures().task(TASK, "ws-1", "REVIEW").session(SESSION, TASK, "test-agent", SessionState.STARTING, "{}");
    Fence fence = db.tx(h -> new ResumeLockStore().acquire(h, SESSION, "resume-1", Duration.ofMinutes(5)))
        .orElseThrow().fence();
    HeldLaunch held = launchHeldInInitialize(fence);

    assertThat(db.tx((Handle h) -> harness.executors.withdrawLaunch(h, SESSION, "resume-1", "launch withdrawn by the test"))).isPresent();

    AgentLaunchException failure = held.release();
    assertThat(failure.getMessage()).contains("the resume that asked for it gave up on it");
    assertThat(harness.executor(SESSION).status()).isEqualTo("failed");
  }

  /** A launch whose agent waits in {@code initialize} until {@link HeldLaunch#release()}. */
  private HeldLaunch launchHeldInInitialize() throws Exception {
    db.fixtures().task(TASK, "ws-1", "REVIEW").session(SESSION, TASK, "test-agent", SessionState.STARTING, "{}");
    return launchHeldInInitialize(Fence.none());
  }

  /** The same for a session the caller set up, launched under {@code fence}. */
  private HeldLaunch launchHeldInInitialize(Fence fence) throws Exception {
    Path modeFile = harness.workspace.resolve("agent-mode");
    Files.writeString(modeFile, "hold-initialize");
    harness.start(TestAgent.switchable(modeFile, harness.stateDir));
    CompletableFuture<LaunchResult> launch = CompletableFuture.supplyAsync(() -> harness.host.launch(
        new LaunchRequest(SESSION, TestAgent.AGENT_ID, harness.workspace, Map.of(), fence)));
    Await.until(() -> db.tx(h -> harness.executors.find(h, SESSION)).map(ExecutorRecord::status).orElse("no executor row"),
        "starting"::equals, Duration.ofSeconds(10), "the agent to start");
    return new HeldLaunch(launch, modeFile, harness.executor(SESSION).pid());
  }

  private final class HeldLaunch {
    private final CompletableFuture<LaunchResult> launch;
    private final Path modeFile;
    private final long pid;

    HeldLaunch(CompletableFuture<LaunchResult> launch, Path modeFile, long pid) {
      this.launch = launch;
      this.modeFile = modeFile;
      this.pid = pid;
    }

    /** Lets the handshake finish; the launch must fail, leaving no agent behind. */
    AgentLaunchException release() throws Exception {
      Files.writeString(modeFile, "normal");
      AgentLaunchException failure = catchThrowableOfType(AgentLaunchException.class,
          () -> unwrap(launch, Duration.ofSeconds(15)));
      assertThat(failure).as("the launch fails").isNotNull();
      assertThat(failure.failureClass()).isEqualTo(AgentFailureClass.AGENT_PROCESS_START_FAILED);
      assertThat(harness.host.isRunning(SESSION)).isFalse();
      Await.until(() -> !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), Duration.ofSeconds(10),
          "the agent process " + pid + " to end");
      return failure;
    }
  }

  @Test
  void aClosedHostStartsNoAgent() {
    harness.start(TestAgent.profile("normal", harness.stateDir));
    db.fixtures().task(TASK, "ws-1", "REVIEW").session(SESSION, TASK, "test-agent", SessionState.STARTING, "{}");
    harness.host.close();

    assertThatThrownBy(() -> harness.launch(SESSION))
        .isInstanceOf(AgentLaunchException.class)
        .hasMessageContaining("this worker is stopping; no agent was started");
    assertThat(db.tx((Handle h) -> harness.executors.find(h, SESSION))).isEmpty();
  }

  private static <T> T unwrap(CompletableFuture<T> future, Duration timeout) throws Exception {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  @Test
  void permissionRequestsAreAnsweredByPolicy() {
    launched("normal", "--ask-permission");
    assertThat(harness.turns.prompt(SESSION, "edit").responseText()).contains("[permission: allow]");
    harness.close();

    harness.start(AgentProfiles.of(TestAgent.profile("normal", harness.stateDir, "--ask-permission")),
        AcpHarness.TIMEOUTS, PermissionPolicy.REJECT);
    harness.launch(SESSION);
    assertThat(harness.turns.prompt(SESSION, "edit").responseText()).contains("[permission: reject]");
  }

  @Test
  void fileReadsAndWritesStayInsideTheWorkspace() throws Exception {
    launched("normal");
    Files.writeString(harness.workspace.resolve("notes.txt"), "inside");
    Path outside = Files.createTempFile("kandev-outside", ".txt");
    Files.writeString(outside, "secret");
    Files.createSymbolicLink(harness.workspace.resolve("link"), outside);

    assertThat(harness.turns.prompt(SESSION, "read:" + harness.workspace.resolve("notes.txt")).responseText())
        .contains("[read: inside]");
    assertThat(harness.turns.prompt(SESSION, "read:" + outside).responseText())
        .contains("read error -32602").contains("outside the session workspace").doesNotContain("secret]");
    assertThat(harness.turns.prompt(SESSION, "read:" + harness.workspace.resolve("link")).responseText())
        .contains("read error -32602");
    assertThat(harness.turns.prompt(SESSION, "read:" + harness.workspace.resolve("../x/../" + outside.getFileName())).responseText())
        .contains("read error -32602");
    assertThat(harness.turns.prompt(SESSION, "read:" + harness.workspace.resolve("missing.txt")).responseText())
        .contains("read error -32002");
    assertThat(harness.turns.prompt(SESSION, "write:" + harness.workspace.resolve("dir/out.txt") + ":hello").responseText())
        .contains("[written]");
    assertThat(Files.readString(harness.workspace.resolve("dir/out.txt"))).isEqualTo("hello");
    assertThat(harness.turns.prompt(SESSION, "write:" + outside + ":pwned").responseText())
        .contains("write error -32602");
    assertThat(Files.readString(outside)).isEqualTo("secret");
    Files.delete(outside);
  }

  @Test
  void unsupportedAgentRequestsGetAMethodNotFoundError() {
    launched("normal");

    assertThat(harness.turns.prompt(SESSION, "unsupported").responseText())
        .contains("terminal error -32601");
  }

  @Test
  void turnExceedingItsTimeoutIsCancelled() {
    launched("slow-turn");
    PromptTurns turns =
        new PromptTurns(harness.host, db.transactions(), Duration.ofSeconds(1), AcpHarness.TIMEOUTS.stopGrace());

    TurnResult result = turns.prompt(SESSION, "slow");

    assertThat(result.stopReason()).isEqualTo("cancelled");
    assertThat(sessionState()).isEqualTo("WAITING_FOR_INPUT");
    assertThat(List.of(taskState())).containsExactly("REVIEW");
  }
}
