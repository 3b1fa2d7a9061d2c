package dev.kandev.recovery.worker.chaos;

import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.TempFolders;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.worker.chaos.ChaosHistory.FaultEvent;
import dev.kandev.recovery.worker.chaos.ChaosHistory.OpRecord;
import dev.kandev.recovery.worker.chaos.ChaosHistory.Outcome;
import dev.kandev.recovery.worker.chaos.ChaosSchedule.Fault;
import dev.kandev.recovery.worker.chaos.ChaosSchedule.Op;
import dev.kandev.recovery.worker.chaos.ChaosSchedule.OpKind;
import dev.kandev.recovery.worker.cluster.LocalPostgres;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.NatsServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.harness.TestAgentProcesses;
import dev.kandev.recovery.workflows.client.ResumeConflictException;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TerminatedFailure;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A randomized fault campaign on the real topology: a PostgreSQL of its own (so its restarts hurt
 * no other test), {@code dev} (the Temporal dev server and a worker) and two {@code worker}
 * processes of the packaged jar, NATS as Kandev's bus on the {@code kandev} layout, the test agent
 * with a fault mode per launch, and the GitHub App stand-in. One thread per session runs its
 * operations of the {@link ChaosSchedule} in order, a scheduler injects the faults at their times,
 * a sampler watches {@code /proc} and the tokens; at the end every process is brought back, the
 * system settles and {@link ChaosChecker} judges the whole history.
 */
public final class ChaosCampaign implements AutoCloseable {
  /** Written by another Kandev version: a key this one does not know, a number a typed round trip rewrites. */
  static final String SNAPSHOT = "{\"version\":1,\"policy\":\"none\",\"permissions\":{},\"source\":\"executor\","
      + "\"capturedAt\":\"2026-11-30T10:00:00Z\",\"routedBy\":\"kandev-2.4\",\"weight\":1.50}";
  /** Kandev's own metadata key every session starts with. */
  static final String KANDEV_KEY = "kandev_ui";
  static final int MESSAGES = 3;
  private static final Duration OP_WAIT = Duration.ofMinutes(5);

  final ChaosSchedule schedule;
  final PrintStream out;
  /** Where {@link #out} is written too (the checker looks for secrets there); null: nowhere. */
  final Path outputFile;
  final ChaosHistory history = new ChaosHistory();
  final List<String> sessions = new ArrayList<>();
  /** The campaign's clock starts once the topology is up: the schedule's times count from there. */
  private volatile long start = System.nanoTime();
  LocalPostgres postgres;
  RecoveryCluster cluster;
  NatsServer nats;
  NatsServer.Subscriber bus;
  TestAgentProcesses agents;
  private final Slot[] slots = new Slot[3];
  private final Object postgresLock = new Object();
  private volatile boolean sampling = true;
  private final Map<Integer, Long> serverStopped = new ConcurrentHashMap<>();

  /** A process place: 0 is {@code dev}, 1 and 2 are {@code worker}s; each start is a new instance. */
  private final class Slot {
    final int index;
    int generation;
    KandevProcess process;
    boolean stopped;

    Slot(int index) {
      this.index = index;
    }

    String base() {
      return index == 0 ? "dev" : "w" + index;
    }

    synchronized boolean up() {
      return process != null && process.isAlive();
    }

    /**
     * Starts the next instance; a start that fails (PostgreSQL restarting) is tried again. A {@code dev}
     * reuses the server a killed one left, so a server the campaign stopped is continued first.
     */
    synchronized void startNext() {
      if (index == 0) {
        continueServer(-1);
      }
      for (int attempt = 1; ; attempt++) {
        String name = base() + "-" + ++generation;
        try {
          process = index == 0 ? cluster.dev(name) : cluster.worker(name);
          stopped = false;
          note(-1, "started " + name + " (pid " + process.pid() + ")");
          return;
        } catch (AssertionError | RuntimeException e) {
          note(-1, "start of " + name + " failed (attempt " + attempt + "): " + firstLine(e.getMessage()));
          try {
            cluster.kill(name);
          } catch (RuntimeException ignored) {
            // not registered
          }
          if (index != 0) {
            ensureServer();
          }
          if (attempt == 30) {
            throw e;
          }
          sleep(Duration.ofSeconds(3));
        }
      }
    }

    synchronized void kill(int fault) {
      String name = process.name();
      cluster.kill(name);
      process = null;
      stopped = false;
      note(fault, "SIGKILL " + name);
    }
  }

  /** Ends SERVER_STOP faults: a thread of its own that waits on nothing else. */
  private final ScheduledThreadPoolExecutor serverContinuations = new ScheduledThreadPoolExecutor(1);

  public ChaosCampaign(ChaosSchedule schedule, PrintStream out, Path outputFile) {
    this.schedule = schedule;
    this.out = out;
    this.outputFile = outputFile;
  }

  /** Copies the processes' logs and the agents' launch log to {@code target} (kept after the campaign). */
  public void keepLogs(Path target) throws IOException {
    if (cluster == null) {
      return;
    }
    Files.createDirectories(target);
    for (Path dir : List.of(cluster.logDir(), cluster.stateDir())) {
      if (Files.isDirectory(dir)) {
        try (var files = Files.list(dir)) {
          for (Path file : files.filter(f -> Files.isRegularFile(f) && f.getFileName().toString().endsWith(".log")).toList()) {
            Files.copy(file, target.resolve(file.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
    }
    Path launches = cluster.dir().resolve("agent-launches.jsonl");
    if (Files.exists(launches)) {
      Files.copy(launches, target.resolve("agent-launches.jsonl"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
  }

  long now() {
    return (System.nanoTime() - start) / 1_000_000;
  }

  void note(int fault, String what) {
    FaultEvent event = new FaultEvent(now(), fault, what);
    history.faults.add(event);
    out.println("  " + event);
  }

  /** Runs the campaign to its end and returns the checker's verdict. */
  public ChaosChecker.Verdict run() throws Exception {
    out.print(schedule.print());
    out.flush();
    startTopology();
    createSessions();
    out.println("chaos: topology up in " + now() / 1000 + " s, " + sessions.size() + " sessions; running "
        + schedule.length().toSeconds() + " s; times below count from now");
    start = System.nanoTime();
    ScheduledThreadPoolExecutor faults = new ScheduledThreadPoolExecutor(4);
    faults.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    serverContinuations.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    long t0 = now();
    for (Fault fault : schedule.faults()) {
      faults.schedule(() -> inject(faults, fault), Math.max(0, fault.atMs() - t0), TimeUnit.MILLISECONDS);
    }
    Thread sampler = new Thread(this::sample, "chaos-sampler");
    sampler.setDaemon(true);
    sampler.start();
    ExecutorService lanes = Executors.newFixedThreadPool(sessions.size());
    for (int session = 0; session < sessions.size(); session++) {
      int lane = session;
      List<Op> ops = schedule.ops().stream().filter(op -> op.session() == lane).toList();
      lanes.submit(() -> runLane(ops));
    }
    sleep(Duration.ofMillis(Math.max(0, schedule.length().toMillis() - (now() - t0))));
    faults.shutdown();
    serverContinuations.shutdown();
    if (!faults.awaitTermination(3, TimeUnit.MINUTES)) {
      out.println("chaos: faults still being carried out after 3 minutes");
    }
    heal();
    lanes.shutdown();
    if (!lanes.awaitTermination(OP_WAIT.toMinutes() + 2, TimeUnit.MINUTES)) {
      out.println("chaos: operations still running; the checker reports their runs");
    }
    lanes.shutdownNow();
    long healed = now();
    settle(healed);
    sampling = false;
    sampler.join(10_000);
    return new ChaosChecker(this).check();
  }

  // ---- topology ---------------------------------------------------------------------------------

  private void startTopology() throws Exception {
    postgres = LocalPostgres.start();
    cluster = new RecoveryCluster(schedule.layout(), postgres::jdbcUrl);
    cluster.beforeEach(null);
    agents = new TestAgentProcesses(cluster.agentModeFile());
    Path profile = cluster.dir().resolve("agents-chaos.json");
    Files.writeString(profile, """
        {"%s": {"argv": ["node", "%s", "--mode-file=%s", "--workspace-mode"], "env": {"KANDEV_TEST_AGENT_STATE_DIR": "%s",
          "KANDEV_TEST_AGENT_HOST": "%s", "KANDEV_TEST_AGENT_LAUNCH_LOG": "%s"}}}
        """.formatted(TestAgent.AGENT_ID, TestAgent.script(), cluster.agentModeFile(), agentState(),
        RecoveryCluster.HOST, cluster.dir().resolve("agent-launches.jsonl")));
    cluster.setting("KANDEV_AGENTS_FILE", profile.toString());
    cluster.setting("KANDEV_ACP_INITIALIZE_TIMEOUT_SECONDS", "10");
    cluster.setting("KANDEV_ACP_SESSION_LOAD_TIMEOUT_SECONDS", "15");
    cluster.setting("KANDEV_ACP_SESSION_NEW_TIMEOUT_SECONDS", "15");
    cluster.setting("KANDEV_MAX_CONCURRENT_LAUNCHES", "16");
    cluster.setting("KANDEV_DB_POOL_SIZE", "8");
    if (schedule.layout() == StoreLayout.Kind.KANDEV) {
      nats = NatsServer.start();
      bus = nats.subscribe();
      cluster.setting("KANDEV_NATS_URL", nats.url());
    }
    for (int i = 0; i < slots.length; i++) {
      slots[i] = new Slot(i);
    }
    slots[0].startNext();
    // The workers at once: each JVM's start is mostly waiting.
    Thread second = new Thread(slots[2]::startNext, "chaos-start-w2");
    second.start();
    slots[1].startNext();
    second.join();
    if (!slots[2].up()) {
      throw new IllegalStateException("w2 did not start");
    }
  }

  Path agentState() {
    return cluster.dir().resolve("agent-state");
  }

  Path workspace(String session) {
    return cluster.dir().resolve("workspaces").resolve(session);
  }

  static String token(String session) {
    return "sess_" + session;
  }

  /** FAILED sessions of the test agent with a stored token, GitHub-backed, with Kandev's snapshot and key. */
  private void createSessions() throws IOException {
    Files.createDirectories(agentState());
    for (int i = 0; i < schedule.sessions(); i++) {
      String session = ChaosSchedule.sessionId(i);
      sessions.add(session);
      cluster.fixtures.sessionWithToken(session, SessionState.FAILED, token(session));
      if (i == 0) {
        cluster.gitHubBacked(session, "github_app");
      } else {
        cluster.credentials.link(RecoveryCluster.taskOf(session), "repo-widgets", 0);
      }
      Files.createDirectories(workspace(session));
      cluster.fixtures.exec("UPDATE task_sessions SET workspace_path = ?, metadata = jsonb_set(jsonb_set(metadata::jsonb,"
          + " '{git_credential_snapshot}', ?::jsonb), ARRAY[?], '{\"pinned\": true, \"view\": \"board\"}'::jsonb) WHERE id = ?",
          workspace(session).toString(), SNAPSHOT, KANDEV_KEY, session);
      cluster.fixtures.exec("UPDATE tasks SET state = 'IN_PROGRESS' WHERE id = ?", RecoveryCluster.taskOf(session));
      StringBuilder messages = new StringBuilder();
      for (int m = 0; m < MESSAGES; m++) {
        messages.append(m == 0 ? "" : ", ").append("{\"messageId\": \"msg_").append(session).append('_').append(m)
            .append("\", \"role\": \"").append(m % 2 == 0 ? "user" : "agent").append("\", \"text\": \"")
            .append(session).append(" message ").append(m).append("\"}");
      }
      Files.writeString(agentState().resolve(token(session) + ".json"), "{\"id\": \"" + token(session)
          + "\", \"cwd\": \"" + workspace(session) + "\", \"messages\": [" + messages + "]}");
      history.initialTokens.put(session, token(session));
      history.kandevKeys.put(session, ConcurrentHashMap.newKeySet());
      history.kandevKeys.get(session).add(KANDEV_KEY);
    }
  }

  // ---- operations -------------------------------------------------------------------------------

  private void runLane(List<Op> ops) {
    for (Op op : ops) {
      long wait = op.atMs() - now();
      if (wait > 0) {
        sleep(Duration.ofMillis(wait));
      }
      if (now() > schedule.length().toMillis() + 60_000) {
        return; // the campaign is settling: late operations are dropped, as printed
      }
      try {
        runOp(op);
      } catch (RuntimeException | Error e) {
        out.println("chaos: op " + op.index() + " could not be carried out: " + e);
        history.ops.add(new OpRecord(op, "", null, null, now(), now(), new Outcome("NOT_STARTED", null, null, null,
            firstLine(String.valueOf(e.getMessage()))), null, null, false, ""));
      }
    }
  }

  private void runOp(Op op) {
    String session = sessions.get(op.session());
    long started = now();
    String prepared = prepare(op, session);
    writeWorkspaceMode(session, op.agentMode());
    String snapshotBefore = retrying(() -> snapshot(session), "read the snapshot of " + session);
    ResumeMode mode = op.kind() == OpKind.START_FRESH ? ResumeMode.START_FRESH : ResumeMode.RESUME;
    ResumeRequest request = new ResumeRequest(session, mode, "user", "chaos:op-" + op.index());
    String note = "";
    String runId;
    try {
      runId = retrying(() -> cluster.resumes().start(request).runId(), "start the resume of " + session);
    } catch (ResumeConflictException e) {
      runId = e.getMessage().replaceAll(".*run ([0-9a-f-]{36}).*", "$1");
      note = "conflict with the running resume's mode, attached";
      runId = latestRun(session);
    }
    String secondRunId = null;
    if (op.kind() == OpKind.DOUBLE_RESUME) {
      secondRunId = retrying(() -> cluster.resumes().start(request).runId(), "start the second resume of " + session);
    }
    String run = runId;
    if (op.kind() == OpKind.RESUME_THEN_CANCEL) {
      sleep(Duration.ofMillis(op.cancelAfterMs()));
      retrying(() -> {
        cluster.resumes().attach(session, run).cancel();
        return null;
      }, "cancel the resume of " + session);
    }
    Outcome outcome = await(session, runId, OP_WAIT);
    String snapshotAfter = retrying(() -> snapshot(session), "read the snapshot of " + session);
    boolean latest = run.equals(retrying(() -> latestRun(session), "describe " + session));
    writeWorkspaceMode(session, "normal");
    OpRecord record = new OpRecord(op, prepared, runId, secondRunId, started, now(), outcome, snapshotBefore,
        snapshotAfter, latest, note);
    history.ops.add(record);
    out.println("  " + record);
  }

  /**
   * What Kandev does before a Resume of a session whose agent ran: it saw the agent fail and marks
   * the session FAILED (its compare-and-set), and the worker's reaper stops the agent. Or, for
   * {@link OpKind#KILL_AGENT_THEN_RESUME}, the agent is SIGKILLed and nothing else happens.
   */
  private String prepare(Op op, String session) {
    if (op.kind() == OpKind.KILL_AGENT_THEN_RESUME) {
      Set<Long> pids = agents.in(workspace(session));
      pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
      return pids.isEmpty() ? "no agent to kill" : "SIGKILL agent " + pids;
    }
    SessionState state = retrying(() -> cluster.state(session), "read the state of " + session);
    if (state != SessionState.WAITING_FOR_INPUT && state != SessionState.RUNNING && state != SessionState.IDLE) {
      return "";
    }
    boolean won = retrying(() -> kandevCompareAndSet(session, state, SessionState.FAILED, "agent error (chaos)"),
        "mark " + session + " FAILED");
    long deadline = now() + 20_000;
    while (now() < deadline) {
      boolean live = retrying(() -> cluster.executor(session).map(TestStores::claimsLiveProcess).orElse(false),
          "read the agent of " + session);
      if (!live) {
        break;
      }
      sleep(Duration.ofMillis(300));
    }
    return "Kandev " + state + ">FAILED " + (won ? "won" : "lost");
  }

  /** Kandev's compare-and-set of the session's state: its own SQL on its tables, the store's on the mirror. */
  boolean kandevCompareAndSet(String session, SessionState from, SessionState to, String error) {
    if (schedule.layout() == StoreLayout.Kind.KANDEV) {
      try (Connection c = kandevConnection()) {
        c.setAutoCommit(false);
        try (PreparedStatement lock = c.prepareStatement("SELECT id FROM tasks WHERE id = ? FOR UPDATE");
            PreparedStatement cas = c.prepareStatement("UPDATE task_sessions SET state = ?, error_message = ?,"
                + " completed_at = CASE WHEN ? IN ('FAILED', 'CANCELLED', 'COMPLETED') THEN now() AT TIME ZONE 'UTC'"
                + " ELSE NULL END, updated_at = now() AT TIME ZONE 'UTC' WHERE id = ? AND state = ?")) {
          lock.setString(1, RecoveryCluster.taskOf(session));
          lock.executeQuery().close();
          cas.setString(1, to.name());
          cas.setString(2, error);
          cas.setString(3, to.name());
          cas.setString(4, session);
          cas.setString(5, from.name());
          boolean won = cas.executeUpdate() == 1;
          c.commit();
          return won;
        }
      } catch (SQLException e) {
        throw new IllegalStateException("Kandev's compare-and-set of " + session + " failed: " + e.getMessage(), e);
      }
    }
    return cluster.tx(h -> cluster.sessions().transition(h, session, Set.of(from), to, "kandev (chaos)", error,
        Fence.none())).won();
  }

  Connection kandevConnection() throws SQLException {
    String schemas = schedule.layout() == StoreLayout.Kind.KANDEV
        ? cluster.database().layout().kandevSchema() + "," + cluster.schema() : cluster.schema();
    Connection c = DriverManager.getConnection(postgres.jdbcUrl() + "?currentSchema=" + schemas, "postgres", "");
    try (Statement s = c.createStatement()) {
      s.execute("SET lock_timeout = '5s'");
    }
    return c;
  }

  private void writeWorkspaceMode(String session, String mode) {
    try {
      Path file = workspace(session).resolve(".kandev-test-agent-mode");
      Path next = workspace(session).resolve(".kandev-test-agent-mode.next");
      Files.writeString(next, mode);
      Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The session's credential snapshot as PostgreSQL prints it ({@code null}: none). */
  String snapshot(String session) {
    return cluster.fixtures.string("SELECT metadata::jsonb -> 'git_credential_snapshot' FROM task_sessions WHERE id = ?",
        session);
  }

  String latestRun(String session) {
    return cluster.client().newUntypedWorkflowStub(ResumeRequest.workflowId(session), Optional.empty(), Optional.empty())
        .describe().getRawDescription().getWorkflowExecutionInfo().getExecution().getRunId();
  }

  /** Waits for the run's end (the server may be down meanwhile: asked again) and reads how it ended. */
  Outcome await(String session, String runId, Duration within) {
    long deadline = now() + within.toMillis();
    while (true) {
      try {
        WorkflowStub stub = cluster.client().newUntypedWorkflowStub(ResumeRequest.workflowId(session),
            Optional.of(runId), Optional.empty());
        long left = Math.max(1_000, Math.min(30_000, deadline - now()));
        return outcomeOf(stub, Duration.ofMillis(left));
      } catch (TimeoutException e) {
        if (now() >= deadline) {
          return Outcome.running();
        }
      } catch (RuntimeException e) {
        if (now() >= deadline) {
          return new Outcome("UNKNOWN", null, null, null, firstLine(e.toString()));
        }
        sleep(Duration.ofSeconds(2));
      }
    }
  }

  static Outcome outcomeOf(WorkflowStub stub, Duration within) throws TimeoutException {
    try {
      ResumeResult result = stub.getResult(within.toMillis(), TimeUnit.MILLISECONDS, ResumeResult.class);
      return new Outcome("COMPLETED", result, null, null, null);
    } catch (WorkflowFailedException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ApplicationFailure failure) {
        ResumeFailure details = failure.getDetails().getSize() > 0 ? failure.getDetails().get(ResumeFailure.class) : null;
        return new Outcome("FAILED", null, failure.getType(), details, firstLine(failure.getOriginalMessage()));
      }
      if (cause instanceof CanceledFailure) {
        return new Outcome("CANCELED", null, null, null, null);
      }
      if (cause instanceof TerminatedFailure) {
        return new Outcome("TERMINATED", null, null, null, firstLine(cause.getMessage()));
      }
      return new Outcome("FAILED", null, cause == null ? "?" : cause.getClass().getSimpleName(), null,
          firstLine(String.valueOf(cause == null ? e.getMessage() : cause.getMessage())));
    }
  }

  /** Runs {@code call} until it works (PostgreSQL or Temporal may be restarting), for at most two minutes. */
  <T> T retrying(Supplier<T> call, String what) {
    long deadline = now() + 120_000;
    while (true) {
      try {
        return call.get();
      } catch (ResumeConflictException e) {
        throw e;
      } catch (RuntimeException e) {
        if (now() > deadline) {
          throw new IllegalStateException("could not " + what + " within 2 minutes: " + e, e);
        }
        sleep(Duration.ofSeconds(1));
      }
    }
  }

  // ---- faults -----------------------------------------------------------------------------------

  private void inject(ScheduledThreadPoolExecutor faults, Fault fault) {
    if (now() > schedule.length().toMillis()) {
      note(fault.index(), fault.kind() + " skipped: its time came after the campaign's end (the fault threads were busy)");
      return;
    }
    try {
      injectOrThrow(faults, fault);
    } catch (RuntimeException | Error e) {
      note(fault.index(), fault.kind() + " failed: " + firstLine(String.valueOf(e.getMessage())));
    }
  }

  private void injectOrThrow(ScheduledThreadPoolExecutor faults, Fault fault) {
    int id = fault.index();
    switch (fault.kind()) {
      case WORKER_KILL, DEV_KILL -> {
        Slot slot = slots[fault.kind() == ChaosSchedule.FaultKind.DEV_KILL ? 0 : fault.target()];
        synchronized (slot) {
          if (!slot.up()) {
            note(id, fault.kind() + " skipped: " + slot.base() + " is down");
            return;
          }
          slot.kill(id);
        }
        later(faults, fault, () -> {
          synchronized (slot) {
            if (!slot.up()) {
              slot.startNext();
            }
          }
        });
      }
      case PROCESS_STOP -> {
        Slot slot = slots[fault.target()];
        int generation;
        synchronized (slot) {
          if (!slot.up() || slot.stopped) {
            note(id, "SIGSTOP skipped: " + slot.base() + " is down or stopped");
            return;
          }
          slot.process.signal("STOP");
          slot.stopped = true;
          generation = slot.generation;
          note(id, "SIGSTOP " + slot.process.name() + " for " + fault.durationMs() + " ms");
        }
        later(faults, fault, () -> {
          synchronized (slot) {
            if (slot.generation == generation && slot.up() && slot.stopped) {
              slot.process.signal("CONT");
              slot.stopped = false;
              note(id, "SIGCONT " + slot.process.name());
            }
          }
        });
      }
      case SERVER_KILL -> {
        Slot dev = slots[0];
        synchronized (dev) {
          Optional<Long> server = temporalServer();
          if (server.isEmpty()) {
            note(id, "SERVER_KILL skipped: no Temporal server runs");
            return;
          }
          signal(server.get(), "KILL");
          serverStopped.remove(0);
          note(id, "SIGKILL Temporal server pid " + server.get());
        }
        later(faults, fault, () -> {
          synchronized (dev) {
            if (dev.up()) {
              dev.kill(id);
            }
            dev.startNext();
          }
        });
      }
      case SERVER_STOP -> {
        Slot dev = slots[0];
        long pid;
        synchronized (dev) {
          Optional<Long> server = temporalServer();
          if (server.isEmpty() || serverStopped.containsKey(0)) {
            note(id, "SERVER_STOP skipped: no server or stopped already");
            return;
          }
          pid = server.get();
          signal(pid, "STOP");
          serverStopped.put(0, pid);
          note(id, "SIGSTOP Temporal server pid " + pid + " for " + fault.durationMs() + " ms");
        }
        // Not under dev's monitor (a dev starting meanwhile waits for this very server to answer), and
        // not on the faults' threads: worker starts failing against the stopped server can hold all of
        // them, and the server must still be continued (finding 11).
        later(serverContinuations, fault, () -> continueServer(id));
      }
      case POSTGRES_RESTART_FAST, POSTGRES_RESTART_IMMEDIATE -> {
        String mode = fault.kind() == ChaosSchedule.FaultKind.POSTGRES_RESTART_FAST ? "fast" : "immediate";
        synchronized (postgresLock) {
          note(id, "PostgreSQL restart -m " + mode);
          postgres.restart(mode);
          note(id, "PostgreSQL up again");
        }
      }
      case AGENT_KILL -> {
        List<TestAgentProcesses.AgentProcess> live = agents.live().stream()
            .sorted(Comparator.comparingLong(TestAgentProcesses.AgentProcess::pid)).toList();
        if (live.isEmpty()) {
          note(id, "AGENT_KILL skipped: no agent runs");
          return;
        }
        TestAgentProcesses.AgentProcess agent = live.get(fault.target() % live.size());
        ProcessHandle.of(agent.pid()).ifPresent(ProcessHandle::destroyForcibly);
        note(id, "SIGKILL agent pid " + agent.pid() + " of " + agent.workingDirectory().getFileName());
      }
      case GITHUB_UNAVAILABLE -> {
        cluster.gitHubApp.server.failNext(503, fault.target());
        note(id, "GitHub answers the next " + fault.target() + " token requests 503");
      }
      case GITHUB_REJECTS -> {
        cluster.gitHubApp.server.failNext(403, 1);
        note(id, "GitHub refuses the next token request 403");
      }
      case GITHUB_SLOW -> {
        cluster.gitHubApp.server.delay(Duration.ofSeconds(fault.target()));
        note(id, "GitHub answers " + fault.target() + " s late for " + fault.durationMs() + " ms");
        later(faults, fault, () -> {
          cluster.gitHubApp.server.delay(Duration.ZERO);
          note(id, "GitHub answers at once again");
        });
      }
      case KANDEV_STATE_CAS -> {
        String session = sessions.get(fault.target());
        SessionState state = cluster.state(session);
        SessionState to = switch (state) {
          case STARTING -> SessionState.CANCELLED;
          case WAITING_FOR_INPUT, RUNNING, IDLE -> SessionState.FAILED;
          default -> null;
        };
        if (to == null) {
          note(id, "Kandev's compare-and-set skipped: " + session + " is " + state);
          return;
        }
        boolean won = kandevCompareAndSet(session, state, to, "Kandev (chaos fault " + id + ")");
        note(id, "Kandev's compare-and-set of " + session + " " + state + ">" + to + ": " + (won ? "won" : "lost"));
      }
      case KANDEV_METADATA_KEY -> {
        String session = sessions.get(fault.target());
        String key = "kandev_chaos_" + id;
        String sql = schedule.layout() == StoreLayout.Kind.KANDEV
            ? "UPDATE task_sessions SET metadata = jsonb_set(CASE WHEN metadata IS NULL OR metadata IN ('null','')"
                + " THEN '{}'::jsonb ELSE metadata::jsonb END, ARRAY[?], ?::jsonb, true)::text WHERE id = ?"
            : "UPDATE task_sessions SET metadata = jsonb_set(metadata, ARRAY[?], ?::jsonb, true) WHERE id = ?";
        try (Connection c = kandevConnection(); PreparedStatement update = c.prepareStatement(sql)) {
          update.setString(1, key);
          update.setString(2, "{\"fault\": " + id + "}");
          update.setString(3, session);
          if (update.executeUpdate() == 1) {
            history.kandevKeys.get(session).add(key);
          }
          note(id, "Kandev's SetSessionMetadataKey " + key + " on " + session);
        } catch (SQLException e) {
          note(id, "Kandev's SetSessionMetadataKey " + key + " on " + session + " failed: " + firstLine(e.getMessage()));
        }
      }
      case KANDEV_BOOT_ALTER -> {
        String table = List.of("tasks", "task_sessions", "executors_running").get(fault.target());
        try (Connection c = kandevConnection()) {
          c.setAutoCommit(false);
          try (Statement s = c.createStatement()) {
            // The boot's migration holds ACCESS EXCLUSIVE for a moment, then its ADD COLUMN fails: the column exists.
            s.execute("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
            s.execute("SELECT pg_sleep(" + fault.durationMs() / 1000.0 + ")");
            c.rollback();
            c.setAutoCommit(true);
            s.execute("ALTER TABLE " + table + " ADD COLUMN updated_at timestamp");
          }
          note(id, "Kandev boot: ALTER TABLE " + table + " ADD COLUMN succeeded?!");
        } catch (SQLException e) {
          note(id, "Kandev boot: ALTER TABLE " + table + " ADD COLUMN (held " + fault.durationMs() + " ms): "
              + firstLine(e.getMessage()));
        }
      }
      default -> throw new IllegalStateException("unknown fault " + fault.kind());
    }
  }

  /** Schedules the fault's end; once the campaign's faults are over (the scheduler shut down), the heal ends it. */
  private void later(ScheduledThreadPoolExecutor faults, Fault fault, Runnable end) {
    Runnable guarded = () -> {
      try {
        end.run();
      } catch (RuntimeException | Error e) {
        note(fault.index(), "end of " + fault.kind() + " failed: " + firstLine(String.valueOf(e.getMessage())));
      }
    };
    try {
      faults.schedule(guarded, fault.durationMs(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException over) {
      note(fault.index(), "end of " + fault.kind() + " left to the heal: the faults are over");
    }
  }

  /** SIGCONT of the Temporal server a SERVER_STOP stopped, if it is still stopped. */
  private void continueServer(int fault) {
    Long pid = serverStopped.remove(0);
    if (pid != null) {
      signal(pid, "CONT");
      note(fault, "SIGCONT Temporal server pid " + pid);
    }
  }

  /** A worker cannot start without a Temporal server: {@code dev} started again if its server is gone. */
  private void ensureServer() {
    Slot dev = slots[0];
    synchronized (dev) {
      if (temporalServer().isEmpty()) {
        if (dev.up()) {
          dev.kill(-1);
        }
        dev.startNext();
      }
    }
  }

  /** The pid of the Temporal server serving {@code dev}'s state folder, from {@code /proc}. */
  Optional<Long> temporalServer() {
    String stateDir = cluster.stateDir().toString();
    try (var entries = Files.list(Path.of("/proc"))) {
      return entries.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).filter(p -> {
        try {
          String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
          return cmdline.contains("start-dev") && cmdline.contains(stateDir);
        } catch (IOException | RuntimeException e) {
          return false;
        }
      }).map(p -> Long.parseLong(p.getFileName().toString())).findFirst();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void signal(long pid, String signal) {
    try {
      new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Every process back: continued, started again; the GitHub stand-in healthy. */
  private void heal() {
    note(-1, "healing: every process continued or started again");
    serverStopped.forEach((k, pid) -> {
      signal(pid, "CONT");
      note(-1, "SIGCONT Temporal server pid " + pid);
    });
    serverStopped.clear();
    for (Slot slot : slots) {
      synchronized (slot) {
        if (slot.up() && slot.stopped) {
          slot.process.signal("CONT");
          slot.stopped = false;
          note(-1, "SIGCONT " + slot.process.name());
        }
      }
    }
    Slot dev = slots[0];
    synchronized (dev) {
      if (temporalServer().isEmpty()) {
        if (dev.up()) {
          dev.kill(-1);
        }
        dev.startNext();
      }
    }
    for (Slot slot : slots) {
      synchronized (slot) {
        if (!slot.up()) {
          slot.startNext();
        }
      }
    }
    cluster.gitHubApp.server.failNext(0, 0);
    cluster.gitHubApp.server.delay(Duration.ZERO);
  }

  /**
   * Waits for the system to come to rest: no run left running, no session STARTING, no lock held,
   * and every session at WAITING_FOR_INPUT with a live agent — the restart recovery of a lost
   * agent included, which takes up to its worker's presence timeout and its minute-long look —
   * for at most the recovery window (4 minutes after the heal), whatever is left then is the
   * checker's to report.
   */
  private void settle(long healed) {
    long deadline = healed + 240_000;
    long quietSince = -1;
    while (now() < deadline) {
      boolean quiet;
      try {
        quiet = ChaosChecker.atRest(this);
      } catch (RuntimeException e) {
        quiet = false;
      }
      if (!quiet) {
        quietSince = -1;
      } else if (quietSince < 0) {
        quietSince = now();
      } else if (now() - quietSince > 15_000) {
        break;
      }
      sleep(Duration.ofSeconds(2));
    }
    out.println("chaos: settled " + (now() - healed) / 1000 + " s after the heal");
  }

  private void sample() {
    while (sampling) {
      try {
        Map<String, Set<Long>> bySession = new HashMap<>();
        for (TestAgentProcesses.AgentProcess agent : agents.live()) {
          Path cwd = agent.workingDirectory();
          if (cwd.getParent() != null && cwd.getParent().equals(workspace("x").getParent())) {
            bySession.computeIfAbsent(cwd.getFileName().toString(), k -> new HashSet<>()).add(agent.pid());
          }
        }
        long at = now();
        bySession.forEach((session, pids) -> {
          if (pids.size() > 1) {
            history.overlaps.add(new ChaosHistory.Overlap(at, session, Set.copyOf(pids)));
          }
        });
        for (String session : sessions) {
          SessionIdentity identity = cluster.identity(session);
          Set<String> seen = history.tokensSeen.computeIfAbsent(session, k -> ConcurrentHashMap.newKeySet());
          seen.add(Optional.ofNullable(identity.resumeToken()).orElse(""));
          seen.add(Optional.ofNullable(identity.acpSessionId()).orElse(""));
        }
        history.samples++;
      } catch (RuntimeException e) {
        // PostgreSQL restarting: the next sample
      }
      sleep(Duration.ofSeconds(1));
    }
  }

  static String firstLine(String text) {
    if (text == null) {
      return "";
    }
    String line = text.lines().findFirst().orElse("");
    return line.length() > 300 ? line.substring(0, 300) + "…" : line;
  }

  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Every sorted live agent pid by session, for the checker. */
  Map<String, Set<Long>> agentsBySession() {
    Map<String, Set<Long>> bySession = new HashMap<>();
    for (String session : sessions) {
      bySession.put(session, agents.in(workspace(session)));
    }
    return bySession;
  }

  Set<String> liveInstances() {
    Set<String> names = new HashSet<>();
    for (Slot slot : slots) {
      synchronized (slot) {
        if (slot.up()) {
          names.add(slot.process.name());
        }
      }
    }
    return names.stream().collect(Collectors.toUnmodifiableSet());
  }

  @Override
  public void close() throws Exception {
    try {
      if (bus != null) {
        bus.close();
      }
      if (cluster != null) {
        cluster.afterEach(null);
      }
    } finally {
      try {
        if (nats != null) {
          nats.close();
        }
      } finally {
        if (postgres != null) {
          postgres.close();
        }
      }
    }
  }

  static void deleteQuietly(Path dir) {
    try {
      TempFolders.delete(dir);
    } catch (IOException ignored) {
      // best effort
    }
  }
}
