package dev.kandev.recovery.worker.it;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.KandevCatalog;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.HistorySteps;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.harness.TestAgentProcesses;
import dev.kandev.recovery.worker.interceptors.StepFreezeInterceptor;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.model.TaskState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code dev} — the packaged jar on the real dev server — killed with SIGKILL at every step of a
 * resume, each on a session of its own: right before the step and right after it committed (its
 * result not yet reported), the compensations of a failed launch included, and the undo of what a
 * lost workflow task may have written after a failed lease. The step is frozen first
 * (a test hook in the worker), then the process is killed and {@code dev} started again on the same
 * state folder. Each kill point has the one outcome docs/contract.md ("When a worker dies
 * mid-resume") promises for it, and the test asserts that one: the run's result or failure (step and
 * type), the session's state and transitions, its task's state, the resume token, the credential
 * snapshot (byte for byte where it is restored), the leases, the lock, and the agent processes as
 * {@code /proc} shows them — the settled agent alone, none at all after a failure. One more session
 * covers the settle on the worker that launched the agent, whose agent was SIGKILLed just before.
 *
 * <p>On both store layouts: our mirror, and Kandev's own tables (a fixture of Kandev's schema, its
 * metadata JSON text, the token in its {@code executors_running.resume_token}), with every
 * assertion the same. The layout is a setting of the worker process, so each layout has its own
 * {@code dev} pair.
 */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
class ResumeKilledAtEveryStepIT {
  /** The steps of a resume that launches, in their order ({@code ClearIdentityForFreshStart}: a Start fresh). */
  private static final List<String> STEPS = List.of("AcquireResumeLock", "ReadResumeContext",
      "ClearIdentityForFreshStart", "MarkStarting", "IssueCredentialLeaseForAttempt", "PersistCredentialSnapshot",
      "LaunchAgent", "SettleSession", "ReleaseResumeLock");
  /** The compensations of a resume whose launch failed (and its lock release), in the order they run. */
  private static final List<String> COMPENSATIONS = List.of("StopAgent", "RestoreCredentialSnapshot",
      "RevokeCredentialLeases", "RestorePriorState", "ReleaseResumeLock");
  /** The compensation that only a failure before the snapshot step runs (docs/contract.md, "Stale workflow tasks"). */
  private static final List<String> BEFORE_THE_SNAPSHOT = List.of("UndoLostTaskWrites");
  /** Written by another Kandev version: a key this one does not know, a number a typed round trip rewrites. */
  private static final String SNAPSHOT = "{\"version\":1,\"policy\":\"none\",\"permissions\":{},\"source\":\"executor\","
      + "\"capturedAt\":\"2026-11-30T10:00:00Z\",\"routedBy\":\"kandev-2.4\",\"weight\":1.50}";
  private static final List<String> SETTLED = List.of("FAILED>STARTING", "STARTING>WAITING_FOR_INPUT");
  private static final List<String> RESTORED = List.of("FAILED>STARTING", "STARTING>FAILED");
  private static final List<String> RESUMED_AGAIN = List.of("FAILED>STARTING", "STARTING>WAITING_FOR_INPUT",
      "WAITING_FOR_INPUT>STARTING", "STARTING>WAITING_FOR_INPUT");
  private static final List<String> SETTLE_TAKEN_BACK = List.of("FAILED>STARTING", "STARTING>WAITING_FOR_INPUT",
      "WAITING_FOR_INPUT>STARTING", "STARTING>FAILED");

  @RegisterExtension final RecoveryCluster cluster;

  ResumeKilledAtEveryStepIT(StoreLayout.Kind layout) {
    this.cluster = new RecoveryCluster(layout);
  }

  /**
   * One session frozen at one point. {@code fails}: the step that fails, for the compensations' kill
   * points. {@code agentKilledFirst}: not its worker but its agent is killed, while the settle is
   * frozen on the worker that launched it.
   */
  private record Case(String session, String step, String phase, Fails fails, ResumeMode mode,
      boolean agentKilledFirst) {
    boolean launchFails() {
      return fails == Fails.LAUNCH;
    }

    String point() {
      return session + " " + step + " " + phase;
    }
  }

  /**
   * What makes a case's resume fail: nothing; its launch (its workspace is gone); its lease (a
   * repository of another workspace linked to its task: the broker refuses the scope, issuing none).
   */
  private enum Fails { NOTHING, LAUNCH, LEASE }

  /**
   * The one outcome promised for a kill point: {@code outcome} (the run goes on and succeeds), or a
   * failure at {@code step} of {@code failureType} with the session restored; the task's state and
   * the session's transitions after it. {@code resumedAgain}: the run succeeded from a settle
   * recorded before its worker (and agent) died, so restart recovery resumes the session once more.
   */
  private record Promise(ResumeOutcome outcome, ResumeStep step, String failureType, TaskState task,
      List<String> transitions, boolean resumedAgain) {
    static Promise goesOn(ResumeOutcome outcome) {
      return new Promise(outcome, null, null, TaskState.REVIEW, SETTLED, false);
    }

    static Promise resumedThenResumedAgainByRestartRecovery() {
      return new Promise(ResumeOutcome.RESUMED, null, null, TaskState.REVIEW, RESUMED_AGAIN, true);
    }

    static Promise fails(ResumeStep step, String failureType) {
      return new Promise(null, step, failureType, TaskState.IN_PROGRESS, RESTORED, false);
    }

    /** The settle committed and is taken back: the task stays where the settle put it. */
    static Promise settleTakenBack() {
      return new Promise(null, ResumeStep.SETTLE_SESSION, "AGENT_LOST", TaskState.REVIEW, SETTLE_TAKEN_BACK, false);
    }

    /** One lease per attempt, however often its step ran; none if the broker refused the scope. */
    long leases() {
      return step == ResumeStep.ISSUE_CREDENTIAL_LEASE ? 0 : resumedAgain ? 2 : 1;
    }

    @Override
    public String toString() {
      return outcome != null ? outcome.name() + (resumedAgain ? " then RESUMED again by restart recovery" : "")
          : "FAILED at " + step + " (" + failureType + ")";
    }
  }

  /** docs/contract.md, "When a worker dies mid-resume", row by row. */
  private static Promise promise(Case c) {
    if (c.launchFails()) {
      return Promise.fails(ResumeStep.LAUNCH_AGENT, "AGENT_PROCESS_START_FAILED");
    }
    if (c.fails() == Fails.LEASE) {
      return Promise.fails(ResumeStep.ISSUE_CREDENTIAL_LEASE, "CREDENTIAL_SCOPE_DENIED");
    }
    if (c.agentKilledFirst()) {
      return Promise.fails(ResumeStep.SETTLE_SESSION, "AGENT_LOST");
    }
    return switch (c.step()) {
      case "ClearIdentityForFreshStart" -> Promise.goesOn(ResumeOutcome.STARTED_FRESH);
      case "LaunchAgent" -> Promise.fails(ResumeStep.LAUNCH_AGENT, "ACTIVITY_TIMEOUT_HEARTBEAT");
      case "SettleSession" -> c.phase().equals("before")
          ? Promise.fails(ResumeStep.SETTLE_SESSION, "AGENT_LOST") : Promise.settleTakenBack();
      // Killed only once the SDK recorded the settle's result (see settleRecorded).
      case "ReleaseResumeLock" -> Promise.resumedThenResumedAgainByRestartRecovery();
      default -> Promise.goesOn(ResumeOutcome.RESUMED);
    };
  }

  private TestAgentProcesses agents;
  private Path freezeFile;

  @Test
  void aResumeKilledAtAnyStepEndsWithTheOneOutcomePromisedForThatStep() throws Exception {
    List<Case> cases = new ArrayList<>();
    for (String phase : List.of("before", "after")) {
      for (String step : STEPS) {
        ResumeMode mode = step.equals("ClearIdentityForFreshStart") ? ResumeMode.START_FRESH : ResumeMode.RESUME;
        cases.add(new Case("k" + cases.size(), step, phase, Fails.NOTHING, mode, false));
      }
      for (String step : COMPENSATIONS) {
        cases.add(new Case("k" + cases.size(), step, phase, Fails.LAUNCH, ResumeMode.RESUME, false));
      }
      for (String step : BEFORE_THE_SNAPSHOT) {
        cases.add(new Case("k" + cases.size(), step, phase, Fails.LEASE, ResumeMode.RESUME, false));
      }
    }
    Case agentKilled = new Case("k" + cases.size(), "SettleSession", "before", Fails.NOTHING, ResumeMode.RESUME, true);
    cases.add(agentKilled);
    String kandevCatalog = kandevCatalog();
    agents = new TestAgentProcesses(cluster.agentModeFile());
    freezeFile = cluster.dir().resolve("freeze-steps");
    cluster.setting("KANDEV_MAX_CONCURRENT_LAUNCHES", "40");
    cluster.setting("KANDEV_MAX_RUNNING_AGENTS", "80");
    cluster.dev("dev-a", Map.of("JAVA_TOOL_OPTIONS", "-D" + StepFreezeInterceptor.PROPERTY + "=" + freezeFile));

    Map<Case, String> snapshots = new LinkedHashMap<>();
    for (Case c : cases) {
      snapshots.put(c, failedGitHubSessionWithToken(c));
    }
    freezeAt(cases);
    Map<Case, ResumeHandle> resumes = new LinkedHashMap<>();
    for (Case c : cases) {
      resumes.put(c, cluster.start(c.session(), c.mode()));
    }
    KandevProcess devA = cluster.process("dev-a");
    awaitFrozen(devA, List.of(agentKilled));
    Map<Case, Outcome> outcomes = new LinkedHashMap<>();
    outcomes.put(agentKilled, killTheAgentBeforeTheSettleOnItsOwnWorker(agentKilled, resumes.get(agentKilled), cases));
    awaitFrozen(devA, cases.stream().filter(c -> c != agentKilled).toList());
    for (Case c : cases) {
      if (promise(c).resumedAgain()) {
        Await.until(() -> settleRecorded(resumes.get(c)), Duration.ofMinutes(1),
            "the settle's result of " + c.session() + " to be recorded (the SDK's workflow task heartbeat)");
      }
    }

    Set<Long> agentsOfDevA = pids(agents.live());
    cluster.kill("dev-a");
    // docs/agents.md: a worker killed with kill -9 leaves its agents with a closed stdin, on which they exit.
    Await.until(() -> agentsOfDevA.stream().noneMatch(this::alive), Duration.ofSeconds(30),
        "the agents of the killed dev-a " + agentsOfDevA + " to end");
    cluster.dev("dev-b");

    SoftAssertions softly = new SoftAssertions();
    Set<Long> settledAgents = new HashSet<>();
    for (Case c : cases) {
      Outcome outcome = outcomes.containsKey(c) ? outcomes.get(c) : await(resumes.get(c));
      Promise promised = promise(c);
      Outcome again = promised.resumedAgain() ? awaitTheNextRun(resumes.get(c)) : null;
      String as = c.point() + (c.agentKilledFirst() ? " (its agent killed)" : "") + ": promised " + promised + ", got "
          + outcome + (again == null ? "" : " then " + again);
      Set<Long> processes = agents.in(workspace(c));
      checkCommon(softly, c, promised, as);
      if (promised.outcome() != null) {
        checkWentOn(softly, c, promised, outcome, processes, as);
        if (again != null) {
          checkWentOn(softly, c, promised, again, processes, as + " (the next run)");
        }
        settledAgents.addAll(processes);
      } else {
        checkRestored(softly, c, promised, outcome, snapshots.get(c), processes, as);
      }
    }
    softly.assertThat(pids(agents.live())).as("the agent processes left at the end: the settled ones alone")
        .isEqualTo(settledAgents);
    softly.assertThat(kandevCatalog()).as("Kandev's catalog (columns, types, defaults, constraints, triggers, indexes)")
        .isEqualTo(kandevCatalog);
    softly.assertAll();
  }

  /** What every kill point promises, however it ends: never STARTING, the lock released, one lease for the attempt. */
  private void checkCommon(SoftAssertions softly, Case c, Promise promised, String as) {
    softly.assertThat(cluster.lockHeld(c.session())).as(as + ": lock held").isFalse();
    softly.assertThat(cluster.transitions(c.session())).as(as + ": transitions").isEqualTo(promised.transitions());
    softly.assertThat(taskState(c)).as(as + ": task state").isEqualTo(promised.task().name());
    softly.assertThat(leases(c)).as(as + ": leases issued, one per attempt however often its step ran")
        .isEqualTo(promised.leases());
  }

  private void checkWentOn(SoftAssertions softly, Case c, Promise promised, Outcome outcome, Set<Long> processes,
      String as) {
    softly.assertThat(outcome.result()).as(as).isNotNull();
    if (outcome.result() == null) {
      return;
    }
    ResumeResult result = outcome.result();
    String token = token(c);
    softly.assertThat(result.outcome()).as(as).isEqualTo(promised.outcome());
    softly.assertThat(result.finalState()).as(as).isEqualTo(WAITING_FOR_INPUT);
    softly.assertThat(cluster.state(c.session())).as(as).isEqualTo(WAITING_FOR_INPUT);
    if (c.mode() == ResumeMode.RESUME) {
      softly.assertThat(result.loaded()).as(as + ": session/load").isTrue();
      softly.assertThat(result.providerSessionId()).as(as + ": the stored token loaded").isEqualTo(token);
      softly.assertThat(storedIdentity(c)).as(as + ": token kept").isEqualTo(new SessionIdentity(token, token));
    } else {
      softly.assertThat(result.loaded()).as(as + ": session/new").isFalse();
      softly.assertThat(result.providerSessionId()).as(as + ": a new provider session").isNotEqualTo(token);
      softly.assertThat(storedIdentity(c)).as(as + ": token replaced")
          .isEqualTo(new SessionIdentity(result.providerSessionId(), result.providerSessionId()));
    }
    softly.assertThat(liveLeases(c)).as(as + ": the settled agent's lease is live").isOne();
    softly.assertThat(snapshotField(c, "policy")).as(as + ": the new snapshot's policy").isEqualTo("github_app");
    softly.assertThat(snapshotField(c, "leaseId")).as(as + ": the new snapshot names the attempt's lease").isEqualTo(leaseId(c));
    Optional<ExecutorRecord> agent = cluster.executor(c.session());
    softly.assertThat(agent.map(ExecutorRecord::status)).as(as + ": executor row").contains("running");
    softly.assertThat(agent.map(ExecutorRecord::workerInstance)).as(as + ": launched by").contains("dev-b");
    Long pid = agent.map(ExecutorRecord::pid).orElse(null);
    softly.assertThat(processes).as(as + ": the session's agent processes are its settled agent alone (pid " + pid + ")")
        .hasSize(1).containsOnly(pid == null ? -1L : pid);
    softly.assertThat(cluster.agentEvents()).as(as + ": the settled agent holds the provider session")
        .anyMatch(e -> e.event().equals("session") && pid != null && e.pid() == pid
            && result.providerSessionId().equals(e.sessionId()));
  }

  private void checkRestored(SoftAssertions softly, Case c, Promise promised, Outcome outcome, String snapshotBefore,
      Set<Long> processes, String as) {
    softly.assertThat(outcome.failure()).as(as).isNotNull();
    if (outcome.failure() != null) {
      ResumeFailure failure = outcome.failure();
      softly.assertThat(failure.step()).as(as + ": step").isEqualTo(promised.step());
      softly.assertThat(failure.failureType()).as(as + ": type").isEqualTo(promised.failureType());
      softly.assertThat(failure.sessionState()).as(as + ": reported state").isEqualTo(FAILED);
      softly.assertThat(failure.recoveryActions()).as(as).containsExactly(ResumeMode.RESUME, ResumeMode.START_FRESH);
      if (c.agentKilledFirst()) {
        softly.assertThat(failure.message()).as(as + ": the settle's own-worker branch")
            .contains("on worker instance dev-a) exited");
      }
    }
    String token = token(c);
    softly.assertThat(cluster.state(c.session())).as(as).isEqualTo(FAILED);
    softly.assertThat(storedIdentity(c)).as(as + ": token kept").isEqualTo(new SessionIdentity(token, token));
    softly.assertThat(snapshot(c)).as(as + ": the snapshot of before, byte for byte").isEqualTo(snapshotBefore);
    softly.assertThat(liveLeases(c)).as(as + ": live leases").isZero();
    softly.assertThat(cluster.executor(c.session()).filter(TestStores::claimsLiveProcess))
        .as(as + ": no agent claims the session").isEmpty();
    softly.assertThat(processes).as(as + ": agent processes of the session").isEmpty();
  }

  /**
   * The agent of {@code c}, launched by dev-a, is SIGKILLed while dev-a, alive, is about to settle
   * the session: the settle runs on the worker whose agent exited. To reach the branch where that
   * exit is not recorded yet (the settle must tell it from the process, not from the row), the test
   * holds a share lock on the agent's row meanwhile: the exit's recording waits for it, the settle
   * reads the row beside it and, finding the process gone, records the exit itself — waiting for
   * the test's lock too, which is released then. Returns how the run ended, on dev-a.
   */
  private Outcome killTheAgentBeforeTheSettleOnItsOwnWorker(Case c, ResumeHandle resume, List<Case> cases)
      throws Exception {
    Set<Long> processes = agents.in(workspace(c));
    assertThat(processes).as("the launched agent of " + c.session()).hasSize(1);
    long pid = processes.iterator().next();
    try (Connection holder = DriverManager.getConnection(TestDatabase.URL, TestDatabase.USER, "")) {
      try (Statement statement = holder.createStatement()) {
        statement.execute("SET search_path TO " + cluster.schema());
      }
      holder.setAutoCommit(false);
      int holderPid = integer(holder, "SELECT pg_backend_pid()");
      // Our record of the agent: the mirror's executors_running, or our kandev_agent_executions beside Kandev's tables.
      String executions = cluster.database().layout().isKandev() ? "kandev_agent_executions" : "executors_running";
      try (PreparedStatement lock = holder.prepareStatement(
          "SELECT 1 FROM " + executions + " WHERE session_id = ? FOR SHARE")) {
        lock.setString(1, c.session());
        lock.executeQuery().close();
      }
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      Await.until(() -> !Files.exists(Path.of("/proc", Long.toString(pid))), Duration.ofSeconds(30),
          "the agent " + pid + " to end and dev-a to reap it");
      String thawedAt = cluster.fixtures.string("SELECT clock_timestamp()::text");
      freezeAt(cases.stream().filter(other -> other != c).toList());
      Await.until(() -> waitsBehind(holderPid, thawedAt), Duration.ofMinutes(1),
          "the settle of " + c.session() + " to record the exit of the agent it found gone");
      holder.commit();
    }
    return await(resume);
  }

  /**
   * Whether the settle — a transaction begun after {@code since} that locked a row of the layout's
   * {@code task_sessions} — waits for the test's lock to lock the agent's row FOR UPDATE. The
   * worker's own recording of the exit waits there too, but touches no session row: taking it for
   * the settle would release the test's lock before the settle read the row.
   */
  private boolean waitsBehind(int holderPid, String since) {
    return cluster.fixtures.count("SELECT count(*) FROM pg_stat_activity a WHERE ? = ANY(pg_blocking_pids(a.pid))"
        + " AND a.query LIKE '%FOR UPDATE%' AND a.xact_start > ?::timestamptz AND EXISTS (SELECT 1 FROM pg_locks l"
        + " WHERE l.pid = a.pid AND l.locktype = 'relation' AND l.relation = 'task_sessions'::regclass)",
        holderPid, since) > 0;
  }

  private static int integer(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static void awaitFrozen(KandevProcess dev, List<Case> cases) throws IOException {
    Set<String> points = new HashSet<>(cases.stream().map(c -> "FROZEN " + c.point()).toList());
    try {
      Await.until(() -> frozen(dev.output()).containsAll(points), Duration.ofMinutes(3),
          "the resumes of " + cases.size() + " session(s) to freeze at their points");
    } catch (AssertionError e) {
      Files.writeString(Path.of("target", "frozen-" + dev.name() + ".log"), dev.output());
      points.removeAll(frozen(dev.output()));
      throw new AssertionError(e.getMessage() + "; not frozen: " + points, e);
    }
  }

  /** Whether the run's history holds the settle's result (a local step's marker) although the run goes on. */
  private boolean settleRecorded(ResumeHandle resume) {
    return HistorySteps.of(cluster.client().fetchHistory(resume.workflowId(), resume.runId())).stream()
        .anyMatch(step -> step.startsWith("SettleSession@"));
  }

  /** The run of the session's workflow id after {@code resume}: restart recovery's, waited for and awaited. */
  private Outcome awaitTheNextRun(ResumeHandle resume) throws TimeoutException {
    String next = Await.until(() -> latestRun(resume.workflowId()), run -> !run.equals(resume.runId()),
        Duration.ofMinutes(3), "restart recovery to resume " + resume.workflowId() + " again");
    return await(cluster.resumes().attach(resume.workflowId().substring("resume-session-".length()), next));
  }

  private String latestRun(String workflowId) {
    return cluster.client().newUntypedWorkflowStub(workflowId, Optional.empty(), Optional.empty()).describe()
        .getRawDescription().getWorkflowExecutionInfo().getExecution().getRunId();
  }

  /** Replaces the freeze file whole (a frozen step goes on once its line is gone, so no reader may see half). */
  private void freezeAt(List<Case> cases) throws IOException {
    Path next = freezeFile.resolveSibling("freeze-steps.next");
    Files.write(next, cases.stream().map(Case::point).toList());
    Files.move(next, freezeFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** What a run ended with: its result, or its failure. */
  private record Outcome(ResumeResult result, ResumeFailure failure) {
    @Override
    public String toString() {
      return result != null ? result.outcome().name() : "FAILED at " + failure.step() + " (" + failure.failureType() + ")";
    }
  }

  private static Outcome await(ResumeHandle resume) throws TimeoutException {
    try {
      return new Outcome(resume.await(Duration.ofMinutes(3)), null);
    } catch (ResumeFailedException e) {
      return new Outcome(null, e.failure());
    }
  }

  /**
   * A FAILED session of the test agent whose provider session exists, backed by GitHub (so a resume
   * takes a real lease and persists a new snapshot), with a snapshot another version wrote, a
   * workspace of its own (its agents' working directory: how {@code /proc} tells them apart) and its
   * task in progress (a settle moves it to REVIEW). Returns the stored snapshot as PostgreSQL prints it.
   */
  private String failedGitHubSessionWithToken(Case c) throws IOException {
    String token = token(c);
    cluster.fixtures.sessionWithToken(c.session(), SessionState.FAILED, token);
    if (cluster.fixtures.count("SELECT count(*) FROM repositories") == 0) {
      cluster.gitHubBacked(c.session(), "github_app");
    } else {
      cluster.credentials.link(RecoveryCluster.taskOf(c.session()), "repo-widgets", 0);
    }
    if (c.fails() == Fails.LEASE) {
      cluster.credentials.repository("repo-" + c.session(), "ws-other", "github.com", "acme", "other")
          .link(RecoveryCluster.taskOf(c.session()), "repo-" + c.session(), 1);
    }
    if (!c.launchFails()) {
      Files.createDirectories(workspace(c));
    }
    // Kandev's metadata is JSON text, ours jsonb: the cast reads either, the assignment writes either.
    cluster.fixtures.exec("UPDATE task_sessions SET workspace_path = ?,"
        + " metadata = jsonb_set(metadata::jsonb, '{git_credential_snapshot}', ?::jsonb) WHERE id = ?",
        workspace(c).toString(), SNAPSHOT, c.session());
    cluster.fixtures.exec("UPDATE tasks SET state = ? WHERE id = ?", TaskState.IN_PROGRESS.name(),
        RecoveryCluster.taskOf(c.session()));
    Path agentState = cluster.dir().resolve("agent-state");
    Files.createDirectories(agentState);
    Files.writeString(agentState.resolve(token + ".json"),
        "{\"id\": \"" + token + "\", \"cwd\": \"" + workspace(c) + "\", \"messages\": []}");
    return snapshot(c);
  }

  /** Kandev's catalog in the kandev layout (we never issue DDL there); nothing on the mirror. */
  private String kandevCatalog() {
    StoreLayout layout = cluster.database().layout();
    return layout.isKandev() ? KandevCatalog.of(cluster.fixtures, layout.kandevSchema()) : "";
  }

  /** The session's workspace; absent for a case whose launch must fail. */
  private Path workspace(Case c) {
    return cluster.dir().resolve("workspaces").resolve(c.launchFails() ? c.session() + "-gone" : c.session());
  }

  private static String token(Case c) {
    return "sess_" + c.session();
  }

  /**
   * The session's snapshot entry as the layout stores it, printed by PostgreSQL: on Kandev's tables
   * the entry of the metadata text, parsed as {@code jsonb}, which keeps every key and a number's
   * digits (1.50 stays 1.50) — what a restore must put back.
   */
  private String snapshot(Case c) {
    return cluster.fixtures.string("SELECT metadata::jsonb -> 'git_credential_snapshot' FROM task_sessions WHERE id = ?",
        c.session());
  }

  private String snapshotField(Case c, String field) {
    return cluster.fixtures.string(
        "SELECT metadata::jsonb -> 'git_credential_snapshot' ->> ? FROM task_sessions WHERE id = ?", field, c.session());
  }

  /**
   * The token read straight from where the layout keeps it: {@code executors_running.resume_token}
   * (Kandev's table in the kandev layout, our mirror's otherwise) and {@code metadata.acp.session_id}.
   */
  private SessionIdentity storedIdentity(Case c) {
    return new SessionIdentity(
        cluster.fixtures.string("SELECT COALESCE(resume_token, '') FROM executors_running WHERE session_id = ?", c.session()),
        cluster.fixtures.string("SELECT COALESCE(metadata::jsonb #>> '{acp,session_id}', '') FROM task_sessions WHERE id = ?",
            c.session()));
  }

  private String taskState(Case c) {
    return cluster.fixtures.string("SELECT state FROM tasks WHERE id = ?", RecoveryCluster.taskOf(c.session()));
  }

  private long leases(Case c) {
    return cluster.fixtures.count("SELECT count(*) FROM credential_leases WHERE session_id = ?", c.session());
  }

  /** The session's live lease. */
  private String leaseId(Case c) {
    return cluster.fixtures.string("SELECT id FROM credential_leases WHERE session_id = ? AND revoked_at IS NULL", c.session());
  }

  private long liveLeases(Case c) {
    return cluster.fixtures.count(
        "SELECT count(*) FROM credential_leases WHERE session_id = ? AND revoked_at IS NULL AND expires_at > now()", c.session());
  }

  private static Set<Long> pids(List<TestAgentProcesses.AgentProcess> processes) {
    Set<Long> pids = new HashSet<>();
    processes.forEach(p -> pids.add(p.pid()));
    return pids;
  }

  /** Whether the agent process runs (a zombie has ended: its parent just did not reap it yet). */
  private boolean alive(long pid) {
    return pids(agents.live()).contains(pid);
  }

  /** The points frozen so far (a local step that outlasts its timeout is attempted, and frozen, again). */
  private static Set<String> frozen(String output) {
    return output.lines().filter(line -> line.startsWith("FROZEN ")).collect(java.util.stream.Collectors.toSet());
  }
}
