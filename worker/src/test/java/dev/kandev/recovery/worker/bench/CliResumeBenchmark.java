package dev.kandev.recovery.worker.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Timestamp;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.model.SessionState;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a resume costs its caller beyond the run itself: the CLI's wall time against the run's own
 * duration on the server (its history's start to close), on {@code dev} from the packaged jar. Three
 * starters, in turn, a new session each (START_FRESH of a CREATED session: a real launch of the test
 * agent): {@code java -jar kandev-recovery.jar resume}, the launcher {@code bin/kandev-recovery
 * resume} (AppCDS archive, C1 only, serial GC) and the Go starter's {@code kandev-resume}, built
 * once. The launcher's first run, which records its archive, is timed apart. Prints; asserts only
 * that every start ended with its outcome.
 */
@Tag("benchmark")
public class CliResumeBenchmark {
  private static final int ROUNDS = Integer.getInteger("bench.cliRounds", 10);
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  private int sessions;

  @Test
  public void theResumeCommandsOwnTimeAgainstTheRunsDuration() throws Exception {
    cluster.dev("dev");
    Path work = Files.createDirectories(cluster.dir().resolve("cli-bench"));
    Path launcherCopy = copyLauncherWithJar(work);
    Path goStarter = work.resolve("kandev-resume");
    run(List.of("go", "build", "-o", goStarter.toString(), "./cmd/kandev-resume"), ROOT.resolve("starters/go"), Map.of());

    Map<String, Starter> starters = new LinkedHashMap<>();
    starters.put("java -jar kandev-recovery.jar resume", session -> List.of(
        ProcessHandle.current().info().command().orElse("java"), "-jar", KandevProcess.jar().toString(), "resume", session, "--fresh"));
    starters.put("bin/kandev-recovery resume", session -> List.of(launcherCopy.toString(), "resume", session, "--fresh"));
    starters.put("Go starter kandev-resume", session -> List.of(goStarter.toString(), "-session", session, "-fresh"));

    Timing recording = time(starters.get("bin/kandev-recovery resume"));
    assertThat(launcherCopy.resolveSibling("kandev-recovery.jsa")).as("the launcher's first resume records its archive").exists();
    for (Starter starter : starters.values()) {
      time(starter); // warm-up: the server, the worker and the page cache
    }
    Map<String, List<Timing>> timings = new LinkedHashMap<>();
    starters.keySet().forEach(name -> timings.put(name, new ArrayList<>()));
    List<String> names = List.copyOf(starters.keySet());
    for (int round = 0; round < ROUNDS; round++) {
      for (int i = 0; i < names.size(); i++) {
        String name = names.get((round + i) % names.size()); // the first of a round rotates
        timings.get(name).add(time(starters.get(name)));
      }
    }
    print(timings, recording);
  }

  /** The launcher and the jar (with its lib/) side by side in a folder of the test: the archive goes there. */
  private static Path copyLauncherWithJar(Path work) throws IOException {
    Path jar = KandevProcess.jar();
    Files.copy(jar, work.resolve("kandev-recovery.jar"));
    Files.createSymbolicLink(work.resolve("lib"), jar.resolveSibling("lib"));
    Path launcher = work.resolve("kandev-recovery");
    Files.copy(ROOT.resolve("bin/kandev-recovery"), launcher);
    assertThat(launcher.toFile().setExecutable(true)).isTrue();
    return launcher;
  }

  private Timing time(Starter starter) throws Exception {
    String session = "cli-" + (sessions++);
    cluster.newSession(session, SessionState.CREATED);
    long started = System.nanoTime();
    String output = run(starter.command(session), ROOT, cluster.cliEnvironment());
    double wallMillis = (System.nanoTime() - started) / 1e6;
    assertThat(output).as("the starter's output").containsIgnoringCase("STARTED_FRESH");
    return new Timing(wallMillis, runMillis("resume-session-" + session));
  }

  /** The run's own duration: its history's start to close, as the server recorded them. */
  private double runMillis(String workflowId) {
    WorkflowExecutionInfo info = cluster.client().getWorkflowServiceStubs().blockingStub()
        .describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder().setNamespace("default")
            .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId)).build())
        .getWorkflowExecutionInfo();
    assertThat(info.hasCloseTime()).as(workflowId + " closed").isTrue();
    return millis(info.getCloseTime()) - millis(info.getStartTime());
  }

  private static double millis(Timestamp at) {
    return at.getSeconds() * 1e3 + at.getNanos() / 1e6;
  }

  private static String run(List<String> command, Path dir, Map<String, String> env) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).as(command + " ended").isTrue();
    String text = new String(output, StandardCharsets.UTF_8);
    assertThat(process.exitValue()).as(command + " exit code; output:\n" + text).isZero();
    return text;
  }

  private static void print(Map<String, List<Timing>> timings, Timing recording) {
    Latencies baseline = overhead(timings.values().iterator().next());
    StringBuilder table = new StringBuilder("""
        | starter | n | wall median ms | wall p95 ms | run median ms | own time median ms (wall − run) | own time × java -jar |
        |---|---:|---:|---:|---:|---:|---:|
        """);
    timings.forEach((name, list) -> {
      Latencies wall = new Latencies();
      Latencies run = new Latencies();
      list.forEach(t -> {
        wall.add((long) (t.wallMillis() * 1e6));
        run.add((long) (t.runMillis() * 1e6));
      });
      Latencies own = overhead(list);
      table.append("| %s | %d | %.0f | %.0f | %.0f | %.0f | %.2f× |%n".formatted(name, list.size(), wall.medianMillis(),
          wall.p95Millis(), run.medianMillis(), own.medianMillis(), own.medianMillis() / baseline.medianMillis()));
    });
    System.out.println("\nThe resume command's own time against its run's (dev from the packaged jar, a START_FRESH of a"
        + " new session each, starters in turn)\n" + table
        + "The launcher's first resume, which records its AppCDS archive: wall %.0f ms, run %.0f ms%n".formatted(
            recording.wallMillis(), recording.runMillis())
        + Machine.describe());
  }

  private static Latencies overhead(List<Timing> list) {
    Latencies own = new Latencies();
    list.forEach(t -> own.add((long) ((t.wallMillis() - t.runMillis()) * 1e6)));
    return own;
  }

  @FunctionalInterface
  private interface Starter {
    List<String> command(String session);
  }

  private record Timing(double wallMillis, double runMillis) {}
}
