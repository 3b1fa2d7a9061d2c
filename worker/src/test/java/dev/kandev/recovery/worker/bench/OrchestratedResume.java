package dev.kandev.recovery.worker.bench;

import com.uber.m3.tally.Scope;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.worker.TemporalWorkers;
import dev.kandev.recovery.worker.cluster.LocalTemporalCluster;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.ActivityStepTimes;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.temporal.SearchAttributeRegistrar;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import io.temporal.testserver.TestServer;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The resume as a ResumeSessionWorkflow on one Temporal server, run by a worker over the given
 * {@link Components} (so it drives the same agent host and stores as the direct path), timed client
 * side from start to result. {@code tuning} rewrites the options of each of the worker's three
 * workers (a lever); the production options are the identity.
 */
public final class OrchestratedResume implements AutoCloseable {
  public static final String QUEUE = "kandev-recovery-bench";

  private final AutoCloseable server;
  private final Supplier<List<ProcessHandle>> serverProcesses;
  private final TemporalConnection connection;
  private final WorkerFactory factory;
  private final ResumeClient resumes;
  private final List<ResumeHandle> recorded = new CopyOnWriteArrayList<>();
  private volatile boolean record;

  private OrchestratedResume(AutoCloseable server, Supplier<List<ProcessHandle>> serverProcesses, String target,
      Components components, UnaryOperator<WorkerOptions> tuning) {
    this(server, serverProcesses, target, components, tuning, null);
  }

  /** @param metricsScope where the SDK reports its meters (null: nowhere) */
  private OrchestratedResume(AutoCloseable server, Supplier<List<ProcessHandle>> serverProcesses, String target,
      Components components, UnaryOperator<WorkerOptions> tuning, Scope metricsScope) {
    this.server = server;
    this.serverProcesses = serverProcesses;
    this.connection = TemporalConnection.open(target, "default", "bench-" + target, metricsScope);
    SearchAttributeRegistrar.register(connection.service, "default");
    this.factory = WorkerFactory.newInstance(connection.client, TemporalWorkers.factoryOptions());
    TemporalWorkers.register((queue, options) -> factory.newWorker(queue, tuning.apply(options)), QUEUE,
        components.registrations());
    factory.start();
    this.resumes = new ResumeClient(connection.client, QUEUE);
  }

  /**
   * The SDK's in-memory test server, as {@code ResumeHarness} uses it, but on real time: left to skip
   * time while it sat idle during another way's phase, its clock ran centuries ahead and the worker's
   * end-to-end latency metric of the next activity overflowed (ArithmeticException in the SDK).
   */
  public static OrchestratedResume onTestServer(Components components) {
    int port = RealTemporalServer.freePort();
    return new OrchestratedResume(TestServer.createPortBoundServer(port, true), List::of, "127.0.0.1:" + port,
        components, UnaryOperator.identity());
  }

  /** A real dev server (SQLite file unless {@code databaseFile} is null) with {@code flags} added. */
  static OrchestratedResume onDevServer(Components components, Path stateDir, Path databaseFile, List<String> flags,
      UnaryOperator<WorkerOptions> tuning) {
    RealTemporalServer.Flagged server = RealTemporalServer.startWith(stateDir, databaseFile, flags);
    return new OrchestratedResume(server, () -> List.of(server.process()), server.address(), components, tuning);
  }

  /** The dev server exactly as {@code kandev-recovery dev} starts it (SQLite file in WAL mode, Web UI). */
  static OrchestratedResume asDevRunsIt(Components components, Path stateDir) {
    return asDevRunsIt(components, stateDir, null);
  }

  /** The same, the SDK's meters reported to {@code metricsScope}. */
  static OrchestratedResume asDevRunsIt(Components components, Path stateDir, Scope metricsScope) {
    DevTemporalServer server = RealTemporalServer.start(stateDir);
    return new OrchestratedResume(server, () -> ProcessHandle.of(server.pid()).stream().toList(), server.address(),
        components, UnaryOperator.identity(), metricsScope);
  }

  /**
   * The production-shaped cluster of {@code scripts/cluster} (its search attributes made by the
   * operator API); the caller owns the cluster.
   */
  static OrchestratedResume onCluster(Components components, LocalTemporalCluster cluster) {
    return new OrchestratedResume(() -> {}, cluster::serviceProcesses, cluster.address(), components,
        UnaryOperator.identity());
  }

  /**
   * The server's processes (with their children, they are all of its CPU); none for the SDK's test
   * server, which runs in this JVM.
   */
  public List<ProcessHandle> serverProcesses() {
    return serverProcesses.get();
  }

  public ResumeResult resume(String sessionId, ResumeMode mode, ResumeOutcome expected) throws Exception {
    ResumeHandle handle = resumes.start(new ResumeRequest(sessionId, mode, "user", "benchmark"));
    ResumeResult result = handle.await(Duration.ofMinutes(2));
    if (result.outcome() != expected) {
      throw new IllegalStateException(sessionId + ": expected " + expected + ", got " + result);
    }
    if (record) {
      recorded.add(handle);
    }
    return result;
  }

  /** From now on keeps each run for {@link #stepTimes()} (forgetting earlier ones), or no longer. */
  public void record(boolean on) {
    if (on) {
      recorded.clear();
    }
    record = on;
  }

  /** The per-activity split of the recorded runs, from their histories. */
  public ActivityStepTimes stepTimes() {
    ActivityStepTimes steps = new ActivityStepTimes();
    recorded.forEach(handle -> steps.addRun(connection.client, handle.workflowId(), handle.runId()));
    return steps;
  }

  @Override
  public void close() throws Exception {
    factory.shutdownNow();
    factory.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
    connection.close();
    server.close();
  }
}
