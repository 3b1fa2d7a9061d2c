package dev.kandev.recovery.worker.bench;

import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.SESSIONS;
import static dev.kandev.recovery.worker.bench.ResumeBenchSessions.session;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the worker JVM's CPU goes per resume: the direct path and the workflow on a dev server as
 * {@code dev} runs it, each profiled alone by Java Flight Recorder ({@link JfrProfile}) over {@code
 * bench.profileResumes} (default 60) sequential resumes after {@code bench.profileWarmUp} (default
 * 30) unrecorded ones. Prints, per resume, the JVM's process CPU, the Java samples by library and the
 * top methods of both side by side, and the JIT's and collectors' time; keeps both recordings in
 * {@code target/jfr} for {@code jfr print}. Asserts what it measured: every resume settled, samples
 * taken.
 */
@Tag("benchmark")
public class WorkerProfileBenchmark {
  private static final int RESUMES = Integer.getInteger("bench.profileResumes", 60);
  private static final int WARM_UP = Integer.getInteger("bench.profileWarmUp", 30);
  private static final double SAMPLE_MILLIS = 10; // the "profile" settings' period for jdk.ExecutionSample

  @RegisterExtension final TestDatabase db = new TestDatabase();
  private final SdkTimers sdkMeters = new SdkTimers();
  @TempDir Path tempDir;

  private record Way(String name, ResumeBenchSessions.FirstLaunch resume) {}

  /** A way's profile, its JVM's CPU per resume, and the SDK's timers that moved meanwhile. */
  private record Profiled(JfrProfile profile, double jvmMillisPerResume, Map<String, SdkTimers.Figure> timers) {
    /** Samples as sampled CPU-ms per resume. */
    double perResume(int samples) {
      return samples * SAMPLE_MILLIS / RESUMES;
    }
  }

  @Test
  public void workerProfile() throws Exception {
    ResumeBenchSessions sessions = new ResumeBenchSessions(db);
    BenchWorkers workers = new BenchWorkers(db, tempDir);
    try (workers;
        DirectResume direct = new DirectResume(workers.create("profile-direct"), 1);
        OrchestratedResume devAsDev = OrchestratedResume.asDevRunsIt(workers.create("profile-dev"), tempDir.resolve("dev"),
            sdkMeters.scope())) {
      sessions.establish(id -> devAsDev.resume(id, ResumeMode.START_FRESH, ResumeOutcome.STARTED_FRESH), workers.all());
      List<Way> ways = List.of(new Way("direct", id -> direct.resume(id, 0)),
          new Way("dev as `dev` runs it", id -> devAsDev.resume(id, ResumeMode.RESUME, ResumeOutcome.RESUMED)));
      Map<String, Profiled> profiles = new LinkedHashMap<>();
      for (Way way : ways) {
        run(way, WARM_UP, sessions, workers.all());
        SdkTimers.Snapshot timersBefore = sdkMeters.snapshot();
        Path file = Path.of("target", "jfr", way.name().replaceAll("[^a-z]+", "-") + ".jfr").toAbsolutePath();
        file.getParent().toFile().mkdirs();
        long before = ProcessCpu.jvmMillis();
        JfrProfile profile = JfrProfile.of(file, () -> run(way, RESUMES, sessions, workers.all()));
        profiles.put(way.name(), new Profiled(profile, (ProcessCpu.jvmMillis() - before) / (double) RESUMES,
            sdkMeters.snapshot().minus(timersBefore)));
        assertThat(profile.samples()).as("Java samples of %s", way.name()).isPositive();
        System.out.println("recording of " + way.name() + ": " + file);
      }
      print(Machine.describe(db.dataSource()), profiles);
      printTimers(ways.get(1).name(), profiles.get(ways.get(1).name()).timers());
    }
  }

  /** {@code count} sequential resumes with their untimed resets; a resume that does not settle throws. */
  private static void run(Way way, int count, ResumeBenchSessions sessions, List<Components> workers) throws Exception {
    for (int i = 0; i < count; i++) {
      String id = session(i % SESSIONS);
      way.resume().run(id);
      sessions.reset(id, workers);
    }
  }

  private static void print(String machine, Map<String, Profiled> profiles) {
    List<String> names = new ArrayList<>(profiles.keySet());
    System.out.println();
    System.out.println("== The worker JVM per resume, Java Flight Recorder (" + RESUMES + " resumes each, after " + WARM_UP
        + " unrecorded) ==");
    System.out.println("machine: " + machine);
    System.out.println(row("", names));
    System.out.println(row("JVM process CPU-ms", cells(profiles, Profiled::jvmMillisPerResume)));
    System.out.println(row("Java samples x 10 ms", cells(profiles, p -> p.perResume(p.profile().samples()))));
    System.out.println(row("JIT compilations, ms", cells(profiles, p -> p.profile().compileMillis() / RESUMES)));
    System.out.println(row("GC, ms", cells(profiles, p -> p.profile().gcMillis() / RESUMES)));
    table("by library (first frame outside the JDK), sampled CPU-ms per resume", profiles,
        JfrProfile::samplesByLibrary, Integer.MAX_VALUE);
    table("top methods (first frame outside the JDK), sampled CPU-ms per resume", profiles,
        JfrProfile::samplesByMethod, 25);
    System.out.println("  a sample is a Java thread seen running Java code (10 ms period); the JIT compiler, GC and"
        + " native code are in the process CPU, not in the samples.");
    System.out.flush();
  }

  /** The SDK's own timers over {@code way}'s recorded resumes: where a resume's time goes, worker side. */
  private static void printTimers(String way, Map<String, SdkTimers.Figure> timers) {
    System.out.println();
    System.out.println("-- the SDK's timers, " + way + ": per resume, count and mean ms --");
    timers.forEach((name, figure) -> System.out.println(row(name,
        List.of(fmt(figure.count() / (double) RESUMES), fmt(figure.meanMillis())))));
    System.out.flush();
  }

  /**
   * One row per key of {@code samples} (libraries or methods) over every way, sampled CPU-ms per
   * resume, the most for the last way first, at most {@code limit}.
   */
  private static void table(String title, Map<String, Profiled> profiles,
      Function<JfrProfile, Map<String, Integer>> samples, int limit) {
    System.out.println();
    System.out.println("-- " + title + " --");
    Map<String, Map<String, Double>> msByWay = new LinkedHashMap<>();
    profiles.forEach((way, p) -> {
      Map<String, Double> ms = new HashMap<>();
      samples.apply(p.profile()).forEach((key, n) -> ms.put(key, p.perResume(n)));
      msByWay.put(way, ms);
    });
    Map<String, Double> last = List.copyOf(msByWay.values()).get(msByWay.size() - 1);
    Set<String> keys = new LinkedHashSet<>();
    msByWay.values().forEach(ms -> keys.addAll(ms.keySet()));
    keys.stream()
        .sorted(Comparator.comparingDouble((String key) -> last.getOrDefault(key, 0.0)).reversed())
        .limit(limit)
        .forEach(key -> System.out.println(row(key,
            msByWay.values().stream().map(ms -> fmt(ms.getOrDefault(key, 0.0))).toList())));
  }

  private static List<String> cells(Map<String, Profiled> profiles, ToDoubleFunction<Profiled> figure) {
    return profiles.values().stream().map(p -> fmt(figure.applyAsDouble(p))).toList();
  }

  private static String row(String label, List<String> cells) {
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "| %-60s |", label));
    cells.forEach(cell -> line.append(String.format(Locale.ROOT, " %22s |", cell)));
    return line.toString();
  }

  private static String fmt(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }
}
