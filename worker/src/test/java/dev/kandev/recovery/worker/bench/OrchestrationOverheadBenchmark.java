package dev.kandev.recovery.worker.bench;

import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.CPU_RESUMES;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.PARALLEL;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.PER_THREAD;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.SEQUENTIAL;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.SESSIONS;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.WARM_UP;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.session;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.activities.testing.bench.Load;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.worker.cluster.LocalPostgres;
import dev.kandev.recovery.worker.cluster.LocalTemporalCluster;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.ActivityStepTimes;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orchestration's overhead, side by side: the same RESUME of the same FAILED sessions (stored
 * token, the Node test agent, real PostgreSQL, one {@link Components} per way) run directly in
 * process ({@link DirectResume}), as the workflow on the SDK's test server, on a real dev server
 * (default journal, and as {@code dev} runs it), on the production-shaped cluster of {@code
 * scripts/cluster} (its own PostgreSQL, every service a process, two frontends behind nginx), and as
 * a DBOS Transact workflow, the peer ({@link DbosPeer}). Sequential resumes are interleaved (each
 * round runs every way once, in a rotating order) so the machine's noise falls on all of them alike;
 * then each way 4 in parallel. Then each way alone for its CPU per resume ({@link CpuMeter}). Then
 * levers that need no workflow change, each on a fresh dev server against the direct path measured
 * again in the same interleaving. Between two resumes of a session it is reset untimed.
 */
@Tag("benchmark")
public class OrchestrationOverheadBenchmark {
  private static final String BASELINE = "production worker options (as above)";
  /** The SQLite file in write-ahead-log mode, as {@code dev}'s server has it. */
  private static final List<String> WAL = List.of("--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma",
      "synchronous=normal");
  /** The flags {@code dev} gives its dev server beyond the harness's (DevTemporalServer). */
  private static final List<String> DEV_FLAGS = Stream.concat(WAL.stream(), Stream.of("--dynamic-config-value",
      "history.transferProcessorMaxPollRPS=" + DevTemporalServer.TRANSFER_READS_PER_SECOND)).toList();

  @RegisterExtension final TestDatabase db = new TestDatabase();
  @TempDir Path tempDir;
  private final ResumeBenchSessions sessions = new ResumeBenchSessions(db);
  private BenchWorkers workers;

  /**
   * One way to run the resume: {@code lane} is the parallel thread (0 when sequential). {@code server}
   * gives its server's processes; {@code noServerProcess} says why there are none (null when there are).
   */
  private record Way(String name, Resume resume, Supplier<List<ProcessHandle>> server, String noServerProcess) {
    Way(String name, Resume resume) {
      this(name, resume, List::of, "none");
    }

    Way(String name, OrchestratedResume orchestrated) {
      this(name, (sessionId, lane) -> orchestrated.resume(sessionId, ResumeMode.RESUME, ResumeOutcome.RESUMED),
          orchestrated::serverProcesses, null);
    }
  }

  @FunctionalInterface
  private interface Resume {
    void run(String sessionId, int lane) throws Exception;
  }

  private record Figures(Latencies sequential, Latencies parallel, double parallelPerSecond) {}

  /** A way's CPU phase: what it spent and over how much wall time. */
  private record Spent(CpuMeter.Sample cpu, long wallMillis) {}

  /** @param keepsFile whether the dev server keeps its store in a SQLite file, as {@code dev} runs it */
  private record Lever(String name, boolean keepsFile, List<String> serverFlags, UnaryOperator<WorkerOptions> tuning) {}

  @Test
  public void orchestrationOverhead() throws Exception {
    workers = new BenchWorkers(db, tempDir);
    String machine = Machine.describe(db.dataSource());
    try (BenchWorkers closedLast = workers;
        LocalPostgres postgres = LocalPostgres.start();
        LocalTemporalCluster cluster = LocalTemporalCluster.start(tempDir.resolve("cluster"), postgres);
        DirectResume direct = new DirectResume(workers.create("bench-direct"), PARALLEL);
        OrchestratedResume testServer = OrchestratedResume.onTestServer(workers.create("bench-test-server"));
        OrchestratedResume devServer = OrchestratedResume.onDevServer(workers.create("bench-dev-server"), tempDir.resolve("dev"),
            tempDir.resolve("dev/temporal.db"), List.of(), UnaryOperator.identity());
        OrchestratedResume devAsDev = OrchestratedResume.asDevRunsIt(workers.create("bench-dev-wal"), tempDir.resolve("dev-wal"));
        OrchestratedResume onCluster = OrchestratedResume.onCluster(workers.create("bench-cluster"), cluster);
        PeerResume dbos = DbosPeer.start(workers.create("bench-dbos"), PARALLEL)) {
      sessions.establish(id -> testServer.resume(id, ResumeMode.START_FRESH, ResumeOutcome.STARTED_FRESH), workers.all());
      Way directWay = new Way("direct (activities in process)", direct::resume);
      Way testWay = new Way("workflow, SDK test server",
          (id, lane) -> testServer.resume(id, ResumeMode.RESUME, ResumeOutcome.RESUMED), List::of, "in JVM");
      Way devWay = new Way("workflow, dev server (SQLite file)", devServer);
      Way devAsDevWay = new Way("workflow, dev server as `dev` runs it (WAL)", devAsDev);
      Way clusterWay = new Way("workflow, cluster (PostgreSQL, 16 shards)", onCluster);
      Way dbosWay = new Way("DBOS Transact workflow (peer)", dbos::resume);
      List<Way> ways = List.of(directWay, testWay, devWay, devAsDevWay, clusterWay, dbosWay);

      Map<String, Figures> main = measure(ways, on -> {
        direct.recordSteps(on);
        devAsDev.record(on);
      });
      printSideBySide(machine, main, directWay.name());
      ActivityStepTimes histories = devAsDev.stepTimes();
      printSteps(direct, histories);
      printHistorySize(histories);

      List<ProcessHandle> servers = new ArrayList<>();
      ways.forEach(way -> servers.addAll(way.server().get()));
      List<ProcessHandle> postmasters = List.of(CpuMeter.postmaster(db.dataSource()), CpuMeter.postmaster(postgres.dataSource()));
      CpuMeter meter = new CpuMeter(postmasters, servers);
      Map<String, Spent> cpu = measureCpu(ways, meter);
      printCpu(machine, cpu, ways, idle(ways, meter));
      assertThat(dbos.checkpointedRuns()).as("DBOS runs recorded as succeeded, all 8 steps checkpointed")
          .isEqualTo(dbos.runs()).isEqualTo((long) WARM_UP + SEQUENTIAL + PARALLEL * PER_THREAD + CPU_RESUMES);

      Map<String, Figures> levers = new LinkedHashMap<>();
      Map<String, Figures> directAgain = new LinkedHashMap<>();
      Map<String, Spent> leverCpu = new LinkedHashMap<>();
      levers.put(BASELINE, main.get(devWay.name()));
      directAgain.put(BASELINE, main.get(directWay.name()));
      leverCpu.put(BASELINE, cpu.get(devWay.name()));
      int n = 0;
      for (Lever lever : levers()) {
        Path dir = tempDir.resolve("lever-" + n++);
        Components leverWorker = workers.create("bench-" + dir.getFileName());
        try (OrchestratedResume server = OrchestratedResume.onDevServer(leverWorker, dir,
            lever.keepsFile() ? dir.resolve("temporal.db") : null, lever.serverFlags(), lever.tuning())) {
          Way leverWay = new Way(lever.name(), server);
          Map<String, Figures> figures = measure(List.of(directWay, leverWay), on -> {});
          levers.put(lever.name(), figures.get(lever.name()));
          directAgain.put(lever.name(), figures.get(directWay.name()));
          List<ProcessHandle> withLever = new ArrayList<>(servers);
          withLever.addAll(server.serverProcesses());
          leverCpu.putAll(measureCpu(List.of(leverWay), new CpuMeter(postmasters, withLever)));
        } finally {
          workers.close(leverWorker);
        }
      }
      printLevers(machine, levers, directAgain, leverCpu);
    }
  }

  /**
   * Each way alone, {@link ResumeBenchSessions#CPU_RESUMES} sequential resumes (with their untimed
   * resets, the same for every way), read before and after: the CPU each process group spent, per
   * resume. Asserts what it measured: every resume settled (a way throws otherwise), the server's
   * processes there when a way has them, no reading went backwards, and the agents' share is not
   * zero (each resume starts a Node process).
   */
  private Map<String, Spent> measureCpu(List<Way> ways, CpuMeter meter) throws Exception {
    Map<String, Spent> spent = new LinkedHashMap<>();
    for (Way way : ways) {
      List<ProcessHandle> server = way.server().get();
      assertThat(server.isEmpty()).as("%s has server processes", way.name()).isEqualTo(way.noServerProcess() != null);
      meter.awaitNoAgent();
      CpuMeter.Sample before = meter.read(server);
      long begin = System.nanoTime();
      int settled = 0;
      for (int i = 0; i < CPU_RESUMES; i++) {
        resumeAndReset(way, session(i % SESSIONS), 0);
        settled++;
      }
      meter.awaitNoAgent(); // its last agent's exit is its own
      CpuMeter.Sample cpu = meter.read(server).minus(before);
      long wallMillis = (System.nanoTime() - begin) / 1_000_000;
      assertThat(settled).as("resumes of %s settled", way.name()).isEqualTo(CPU_RESUMES);
      assertThat(way.server().get()).as("the server processes of %s after its phase", way.name())
          .containsExactlyInAnyOrderElementsOf(server);
      assertThat(List.of(cpu.server(), cpu.jvm(), cpu.postgres(), cpu.agent()))
          .as("CPU ms spent by %s (server, JVM, PostgreSQL, agent)", way.name()).allMatch(ms -> ms >= 0);
      assertThat(cpu.agent()).as("agent CPU of %s's %d launches", way.name(), CPU_RESUMES).isPositive();
      spent.put(way.name(), new Spent(cpu, wallMillis));
    }
    return spent;
  }

  /**
   * The background: every process group's CPU over {@link ResumeBenchSessions#IDLE_SECONDS} in which
   * nothing runs (a measurement window, not a wait for a condition), per second; each way's server
   * apart.
   */
  private static Map<String, CpuMeter.Sample> idle(List<Way> ways, CpuMeter meter) throws InterruptedException {
    meter.awaitNoAgent();
    Map<String, CpuMeter.Sample> before = new LinkedHashMap<>();
    ways.forEach(way -> before.put(way.name(), meter.read(way.server().get())));
    ThreadCpu threadsBefore = ThreadCpu.read();
    long begin = System.nanoTime();
    Thread.sleep(ResumeBenchSessions.IDLE_SECONDS * 1000L);
    double seconds = (System.nanoTime() - begin) / 1e9;
    ThreadCpu threadsAfter = ThreadCpu.read();
    System.out.printf(Locale.ROOT, "%nwhile idle, CPU-ms per second: the JVM's Java threads %.0f in all (the rest of the"
        + " JVM's is its JIT compiler and GC), the busiest: %s%n", threadsAfter.allPerSecond(threadsBefore, seconds),
        threadsAfter.top(threadsBefore, seconds, 6));
    Map<String, CpuMeter.Sample> perSecond = new LinkedHashMap<>();
    for (Way way : ways) {
      CpuMeter.Sample spent = meter.read(way.server().get()).minus(before.get(way.name()));
      assertThat(List.of(spent.server(), spent.jvm(), spent.postgres(), spent.agent()))
          .as("idle CPU ms (server of %s, JVM, PostgreSQL, agent)", way.name()).allMatch(ms -> ms >= 0);
      perSecond.put(way.name(), new CpuMeter.Sample(Math.round(spent.server() / seconds), Math.round(spent.jvm() / seconds),
          Math.round(spent.jit() / seconds),
          Math.round(spent.postgres() / seconds), Math.round(spent.agent() / seconds)));
    }
    return perSecond;
  }

  /**
   * The dev server's levers still open. Measured before and not adopted (docs/benchmarks.md):
   * eager activity execution, poller autoscaling, 2 + 2 pollers, one task queue partition, the
   * server's Go GC at GOGC=200 or 400.
   */
  private List<Lever> levers() {
    return List.of(
        new Lever("WAL, synchronous=normal (20 transfer reads/s)", true, WAL, UnaryOperator.identity()),
        new Lever("WAL + " + DevTemporalServer.TRANSFER_READS_PER_SECOND + " transfer reads/s (dev's flags)", true, DEV_FLAGS,
            UnaryOperator.identity()),
        new Lever("dev server store in memory (no SQLite file)", false, List.of(), UnaryOperator.identity()));
  }

  /**
   * Warm-up, then {@link #SEQUENTIAL} rounds in which every way resumes once (the first way of a
   * round rotates), then each way {@link #PARALLEL} in parallel. {@code recordSteps} is told when the
   * sequential rounds begin and end.
   */
  private Map<String, Figures> measure(List<Way> ways, Consumer<Boolean> recordSteps) throws Exception {
    for (Way way : ways) {
      for (int i = 0; i < WARM_UP; i++) {
        resumeAndReset(way, session(i % SESSIONS), 0);
      }
    }
    Map<String, Latencies> sequential = new LinkedHashMap<>();
    ways.forEach(way -> sequential.put(way.name(), new Latencies()));
    recordSteps.accept(true);
    for (int i = 0; i < SEQUENTIAL; i++) {
      for (int k = 0; k < ways.size(); k++) {
        Way way = ways.get((i + k) % ways.size());
        sequential.get(way.name()).add(resumeAndReset(way, session(i % SESSIONS), 0));
      }
    }
    recordSteps.accept(false);
    Map<String, Figures> figures = new LinkedHashMap<>();
    for (Way way : ways) {
      Latencies parallel = new Latencies();
      Load.Result run = Load.run(PARALLEL, PER_THREAD,
          (thread, i) -> parallel.add(resumeAndReset(way, session(thread), thread)));
      figures.put(way.name(), new Figures(sequential.get(way.name()), parallel, run.perSecond()));
    }
    return figures;
  }

  private long resumeAndReset(Way way, String sessionId, int lane) throws Exception {
    long begin = System.nanoTime();
    way.resume().run(sessionId, lane);
    long nanos = System.nanoTime() - begin;
    sessions.reset(sessionId, workers.all());
    return nanos;
  }

  private static void printSideBySide(String machine, Map<String, Figures> figures, String directName) {
    Figures direct = figures.get(directName);
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "| %-44s | %9s | %8s | %9s | %9s | %8s | %9s | %9s |",
        "path", "seq med", "seq p95", "x direct", "par med", "par p95", "x direct", "par res/s"));
    figures.forEach((name, f) -> lines.add(String.format(Locale.ROOT,
        "| %-44s | %9.1f | %8.1f | %9s | %9.1f | %8.1f | %9s | %9.1f |", name,
        f.sequential().medianMillis(), f.sequential().p95Millis(), ratios(f.sequential(), direct.sequential()),
        f.parallel().medianMillis(), f.parallel().p95Millis(), ratios(f.parallel(), direct.parallel()),
        f.parallelPerSecond())));
    print("RESUME of a FAILED session with a stored token, " + figures.size() + " ways (ms, client side; x direct = median / p95 ratio)",
        machine, lines, "sequential: " + SEQUENTIAL + " per path, interleaved; parallel: " + PARALLEL + " threads x "
            + PER_THREAD + ", a session each; res/s counts the untimed reset.");
  }

  private static void printSteps(DirectResume direct, ActivityStepTimes history) {
    Map<String, Latencies> inHistory = history.byType();
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "| %-34s | %14s | %16s | %10s |", "step", "direct med/p95", "history med/p95", "gap (med)"));
    double directShortSteps = 0;
    double historyShortSteps = 0;
    for (Map.Entry<String, Latencies> step : direct.steps().entrySet()) {
      Latencies called = step.getValue();
      Latencies orchestrated = inHistory.get(step.getKey());
      if (orchestrated == null) { // a local activity: it runs inside a workflow task, no event of its own
        lines.add(String.format(Locale.ROOT, "| %-34s | %6.1f / %5.1f | %16s | %10s |", step.getKey(),
            called.medianMillis(), called.p95Millis(), "local activity", "-"));
        directShortSteps += called.medianMillis();
        continue;
      }
      lines.add(String.format(Locale.ROOT, "| %-34s | %6.1f / %5.1f | %7.1f / %6.1f | %10.1f |", step.getKey(),
          called.medianMillis(), called.p95Millis(), orchestrated.medianMillis(), orchestrated.p95Millis(),
          orchestrated.medianMillis() - called.medianMillis()));
      if (!step.getKey().equals("LaunchAgent")) {
        directShortSteps += called.medianMillis();
        historyShortSteps += orchestrated.medianMillis();
      }
    }
    for (String total : List.of(ActivityStepTimes.WORKFLOW_TASKS, ActivityStepTimes.WORKFLOW_TASK_WAITS,
        ActivityStepTimes.WHOLE_RUN)) {
      Latencies latencies = inHistory.get(total);
      lines.add(String.format(Locale.ROOT, "| %-34s | %14s | %7.1f / %6.1f | %10s |", total, "-",
          latencies.medianMillis(), latencies.p95Millis(), "-"));
    }
    print("Per step, sequential: direct call vs the history on the dev server as `dev` runs it (ActivityTaskScheduled to Completed, ms resolution)",
        Machine.describe(), lines, String.format(Locale.ROOT, "the gap is what the task queue and the worker add to a"
            + " step; the seven short steps: %.1f ms called directly, %.1f ms those run as activities (sum of medians;"
            + " local activities are inside the workflow tasks).",
            directShortSteps, historyShortSteps));
  }

  /**
   * The events of a resume's history and their size, from the dev server's recorded runs (a
   * RESUME of a FAILED session that settles: the same on every server). Asserts that each run was
   * read and that they agree: the same workflow makes the same commands.
   */
  private static void printHistorySize(ActivityStepTimes histories) {
    List<Integer> events = histories.eventsPerRun();
    List<Integer> bytes = histories.historyBytesPerRun().stream().sorted().toList();
    assertThat(events).as("events of each recorded run").hasSize(SEQUENTIAL).allMatch(n -> n.equals(events.get(0)));
    System.out.printf(Locale.ROOT, "%nhistory per resume: %d events, %d bytes (median; %d to %d) over %d runs%n",
        events.get(0), bytes.get(bytes.size() / 2), bytes.get(0), bytes.get(bytes.size() - 1), bytes.size());
  }

  private static void printLevers(String machine, Map<String, Figures> levers, Map<String, Figures> directs,
      Map<String, Spent> cpu) {
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "| %-50s | %9s | %9s | %9s | %9s | %10s | %10s | %10s |",
        "lever (dev server)", "seq med", "x direct", "par med", "x direct", "direct seq", "server CPU", "worker JVM"));
    levers.forEach((name, f) -> {
      Figures direct = directs.get(name);
      CpuMeter.Sample spent = cpu.get(name).cpu();
      lines.add(String.format(Locale.ROOT, "| %-50s | %9.1f | %9.2f | %9.1f | %9.2f | %10.1f | %10s | %10s |", name,
          f.sequential().medianMillis(), f.sequential().medianMillis() / direct.sequential().medianMillis(),
          f.parallel().medianMillis(), f.parallel().medianMillis() / direct.parallel().medianMillis(),
          direct.sequential().medianMillis(), perResume(spent.server()), perResume(spent.jvm())));
    });
    print("Levers without a workflow change (medians in ms; x direct against the direct path of the same interleaving)",
        machine, lines, "each lever on a fresh dev server; production worker options unless the lever says otherwise;"
            + " server CPU and worker JVM: CPU-ms per resume, the lever alone, " + CPU_RESUMES + " sequential resumes"
            + " (the baseline's from the CPU table above).");
  }

  private static void printCpu(String machine, Map<String, Spent> spent, List<Way> ways, Map<String, CpuMeter.Sample> idle) {
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "| %-44s | %9s | %9s | %10s | %9s | %10s | %9s | %9s | %12s |",
        "way", "wall ms", "server", "worker JVM", "of it JIT", "PostgreSQL", "agent", "total", "server idle/s"));
    for (Way way : ways) {
      CpuMeter.Sample cpu = spent.get(way.name()).cpu();
      boolean processes = way.noServerProcess() == null;
      lines.add(String.format(Locale.ROOT, "| %-44s | %9s | %9s | %10s | %9s | %10s | %9s | %9s | %12s |", way.name(),
          perResume(spent.get(way.name()).wallMillis()), processes ? perResume(cpu.server()) : way.noServerProcess(),
          perResume(cpu.jvm()), perResume(cpu.jit()), perResume(cpu.postgres()), perResume(cpu.agent()), perResume(cpu.total()),
          processes ? Long.toString(idle.get(way.name()).server()) : "-"));
    }
    CpuMeter.Sample background = idle.values().iterator().next();
    print("CPU-ms per resume: server | worker JVM | PostgreSQL | agent | total", machine, lines,
        "each way alone, " + CPU_RESUMES + " sequential resumes with their untimed resets, from /proc (10 ms ticks);"
            + " wall ms: the phase's wall time per resume. PostgreSQL is every process of both instances (the shared one"
            + " and the cluster's); the worker JVM is this whole JVM (the other ways' idle workers too, and the SDK test"
            + " server's own work).\n  Idle (nothing running, " + ResumeBenchSessions.IDLE_SECONDS + " s), CPU-ms per"
            + " second: each server in the last column; worker JVM " + background.jvm() + " (of it JIT " + background.jit()
            + "), PostgreSQL "
            + background.postgres() + ", agent " + background.agent() + ". A row's idle share is about its wall ms"
            + " times these rates.");
  }

  private static String perResume(long millis) {
    return String.format(Locale.ROOT, "%.1f", millis / (double) CPU_RESUMES);
  }

  private static String ratios(Latencies path, Latencies direct) {
    return String.format(Locale.ROOT, "%.2f/%.2f", path.medianMillis() / direct.medianMillis(),
        path.p95Millis() / direct.p95Millis());
  }

  private static void print(String title, String machine, List<String> lines, String note) {
    System.out.println();
    System.out.println("== " + title + " ==");
    System.out.println("machine: " + machine);
    lines.forEach(System.out::println);
    System.out.println("  " + note);
    System.out.flush();
  }
}
