package dev.kandev.recovery.worker.bench.dbos;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.workflow.ListWorkflowsInput;
import dev.dbos.transact.workflow.StepInfo;
import dev.dbos.transact.workflow.Workflow;
import dev.dbos.transact.workflow.WorkflowState;
import dev.dbos.transact.workflow.WorkflowStatus;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.worker.bench.PeerResume;
import dev.kandev.recovery.worker.bench.SagaSteps;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.CredentialLease;
import dev.kandev.recovery.workflows.resume.LaunchOutcome;
import dev.kandev.recovery.workflows.resume.ResumeContext;
import dev.kandev.recovery.workflows.resume.ResumeLockOwner;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peer in the overhead table: the resume as one DBOS Transact workflow (a Postgres-backed
 * durable-execution library, checkpointing each step's result in its system database), benchmark
 * code only. The same activity objects as the direct path ({@link SagaSteps}, the launch through
 * a {@code TestActivityEnvironment} so it heartbeats the same way), in the same order, each a DBOS
 * step. DBOS's system database is a database of its own on the same PostgreSQL as the sessions,
 * created here and dropped on {@link #close}. Like the direct path it runs the happy path only: no
 * step retries (a named {@code runStep} makes one attempt), no compensation, no routing of the launch
 * to the session's host. {@code DbosPeer} starts it in a class loader of its own.
 */
public final class DbosResume implements PeerResume {
  /** The workflow's interface: DBOS makes the proxy that runs it durably. */
  public interface ResumeWorkflow {
    Settled resume(String sessionId, int lane);
  }

  /** What a run returns (checkpointed by DBOS as its result). */
  public record Settled(LaunchOutcome launched, SessionState state) {}

  private static final int SAGA_STEPS = 8;

  private final String database;
  private final SagaSteps saga;
  private final DBOS dbos;
  private final ResumeWorkflow workflow;
  private final AtomicLong runs = new AtomicLong();

  public DbosResume(Components components, int lanes) {
    this.database = "kandev_bench_dbos_" + ProcessHandle.current().pid();
    execute("CREATE DATABASE " + database);
    try {
      this.saga = new SagaSteps(components, lanes);
      this.dbos = new DBOS(DBOSConfig.defaults("kandev-bench")
          .withDatabaseUrl(TestDatabase.URL.replaceFirst("/[^/?]+(\\?|$)", "/" + database + "$1"))
          .withDbUser(TestDatabase.USER)
          .withDbPassword("")
          .withAppVersion("bench")); // no admin server by default
      this.workflow = dbos.registerProxy(ResumeWorkflow.class, new Steps(dbos, saga));
      dbos.launch();
    } catch (RuntimeException e) {
      execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
      throw e;
    }
  }

  /** Resumes a FAILED session with a stored token on {@code lane}, as one DBOS workflow run to its end. */
  @Override
  public LaunchOutcome resume(String sessionId, int lane) {
    Settled settled = workflow.resume(sessionId, lane);
    runs.incrementAndGet();
    if (!settled.launched().loaded() || settled.state() != SessionState.WAITING_FOR_INPUT) {
      throw new IllegalStateException(sessionId + ": expected a loaded agent and WAITING_FOR_INPUT, got " + settled);
    }
    return settled.launched();
  }

  @Override
  public long runs() {
    return runs.get();
  }

  @Override
  public long checkpointedRuns() {
    List<WorkflowStatus> succeeded =
        dbos.listWorkflows(new ListWorkflowsInput().withStatus(List.of(WorkflowState.SUCCESS)).withLoadInput(false));
    for (WorkflowStatus run : succeeded) {
      List<StepInfo> steps = dbos.listWorkflowSteps(run.workflowId());
      if (steps.size() != SAGA_STEPS) {
        throw new IllegalStateException("DBOS run " + run.workflowId() + " checkpointed " + steps.size() + " steps, not "
            + SAGA_STEPS + ": " + steps);
      }
    }
    return succeeded.size();
  }

  /** The workflow: the saga's steps in the workflow's order, each a DBOS step (checkpointed). */
  static final class Steps implements ResumeWorkflow {
    private final DBOS dbos;
    private final SagaSteps saga;

    Steps(DBOS dbos, SagaSteps saga) {
      this.dbos = dbos;
      this.saga = saga;
    }

    @Override
    @Workflow
    public Settled resume(String sessionId, int lane) {
      String owner = ResumeLockOwner.of("dbos-" + sessionId, DBOS.workflowId());
      Fence fence = dbos.runStep(() -> saga.locks.acquireResumeLock(sessionId, owner), "AcquireResumeLock");
      ResumeContext context =
          dbos.runStep(() -> saga.sessions.readResumeContext(sessionId, ResumeMode.RESUME, fence), "ReadResumeContext");
      dbos.runStep(() -> saga.sessions.markStarting(sessionId, context.priorState(), "benchmark", fence), "MarkStarting");
      CredentialLease lease = dbos.runStep(
          () -> saga.credentials.issueCredentialLeaseForAttempt(sessionId, fence), "IssueCredentialLeaseForAttempt");
      dbos.runStep(() -> saga.sessions.persistCredentialSnapshot(sessionId, lease.snapshot(), fence),
          "PersistCredentialSnapshot");
      LaunchOutcome launched =
          dbos.runStep(() -> saga.launcher(lane).launchAgent(sessionId, lease.leaseIds(), fence), "LaunchAgent");
      SessionState state = dbos.runStep(() -> saga.sessions.settleSession(sessionId, fence), "SettleSession");
      dbos.runStep(() -> saga.locks.releaseResumeLock(sessionId, owner), "ReleaseResumeLock");
      return new Settled(launched, state);
    }
  }

  private static void execute(String sql) {
    try (Connection c = DriverManager.getConnection(TestDatabase.URL, TestDatabase.USER, "");
        Statement statement = c.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      dbos.close();
      saga.close();
    } finally {
      execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }
}
