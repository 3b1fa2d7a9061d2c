package dev.kandev.recovery.worker.bench;

import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.PARALLEL;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.PER_THREAD;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.SEQUENTIAL;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.SESSIONS;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.WARM_UP;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.session;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.activities.testing.bench.Load;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.activities.testing.bench.Table;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.worker.harness.ActivityStepTimes;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * End-to-end ResumeSessionWorkflow latency on the real worker (Temporal test server, PostgreSQL,
 * the Node test agent): resumes of established FAILED sessions, one at a time and four at once.
 * Each resume launches a fresh agent process that answers session/load; between two resumes of a
 * session its agent is stopped and the session marked FAILED again, outside the timed call.
 */
@Tag("benchmark")
public class ResumeWorkflowBenchmark {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final ResumeHarness harness = new ResumeHarness(db);
  private final ResumeBenchSessions sessions = new ResumeBenchSessions(db);
  private final List<ResumeHandle> finished = new CopyOnWriteArrayList<>();

  @Test
  public void resumeLatency() throws Exception {
    Latencies fresh = new Latencies();
    sessions.establish(id -> fresh.add(timedResume(id, ResumeMode.START_FRESH, ResumeOutcome.STARTED_FRESH)), workers());
    for (int i = 0; i < WARM_UP; i++) {
      resumeAndReset(session(i % SESSIONS));
    }

    finished.clear();
    Latencies sequential = new Latencies();
    long begin = System.nanoTime();
    for (int i = 0; i < SEQUENTIAL; i++) {
      sequential.add(resumeAndReset(session(i % SESSIONS)));
    }
    double sequentialRate = SEQUENTIAL / ((System.nanoTime() - begin) / 1e9);
    ActivityStepTimes sequentialSteps = stepTimes();

    finished.clear();
    Latencies parallel = new Latencies();
    Load.Result parallelRun = Load.run(PARALLEL, PER_THREAD,
        (thread, i) -> parallel.add(resumeAndReset(session(thread))));
    ActivityStepTimes parallelSteps = stepTimes();

    Table table = new Table("ResumeSessionWorkflow end to end (start to result, client side)", "resumes/s")
        .row("START_FRESH of a new session (first launch)", fresh.count(), Double.NaN, fresh)
        .row("RESUME, sequential", sequential.count(), sequentialRate, sequential)
        .row("RESUME, " + PARALLEL + " in parallel", parallel.count(), parallelRun.perSecond(), parallel)
        .note("resumes/s counts the untimed reset between two resumes of a session (stop agent, mark FAILED).");
    table.print(Machine.describe(db.dataSource()));
    stepTable("sequential", sequentialSteps).print(Machine.describe(db.dataSource()));
    stepTable(PARALLEL + " in parallel", parallelSteps).print(Machine.describe(db.dataSource()));
  }

  private List<Components> workers() {
    return List.of(harness.components());
  }

  /** Resumes an established FAILED session, then resets it for the next round; returns the resume's nanos. */
  private long resumeAndReset(String sessionId) throws Exception {
    long nanos = timedResume(sessionId, ResumeMode.RESUME, ResumeOutcome.RESUMED);
    sessions.reset(sessionId, workers());
    return nanos;
  }

  private long timedResume(String sessionId, ResumeMode mode, ResumeOutcome expected) throws Exception {
    long begin = System.nanoTime();
    ResumeHandle handle = harness.start(sessionId, mode);
    ResumeResult result = handle.await(Duration.ofMinutes(2));
    long nanos = System.nanoTime() - begin;
    if (result.outcome() != expected) {
      throw new IllegalStateException(sessionId + ": expected " + expected + ", got " + result);
    }
    finished.add(handle);
    return nanos;
  }

  private ActivityStepTimes stepTimes() {
    ActivityStepTimes steps = new ActivityStepTimes();
    finished.forEach(handle -> steps.addRun(harness.client(), handle.workflowId(), handle.runId()));
    return steps;
  }

  private static Table stepTable(String mode, ActivityStepTimes steps) {
    Table table = new Table("ResumeSessionWorkflow per activity, RESUME " + mode
        + " (history: ActivityTaskScheduled to Completed)", "-");
    steps.byType().forEach((type, latencies) -> table.row(type, latencies.count(), Double.NaN, latencies));
    return table;
  }
}
