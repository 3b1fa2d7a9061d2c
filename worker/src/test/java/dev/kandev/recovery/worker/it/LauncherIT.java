package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/kandev-recovery}, the launcher of the CLI starters, on a copy of the packaged jar: its
 * first resume records the AppCDS archive beside the jar, the next ones load their classes from it,
 * a rebuilt jar makes the next resume record it again, and the starters' output and exit codes are
 * those of {@code java -jar}.
 */
public class LauncherIT {
  private static final Path LAUNCHER = Path.of("..", "bin", "kandev-recovery").toAbsolutePath().normalize();

  @RegisterExtension final TestDatabase db = new TestDatabase();
  @TempDir Path dir;

  private record Run(int exitCode, String output) {}

  @Test
  void theFirstResumeRecordsTheArchiveTheNextOnesLoadFromItAndARebuiltJarIsRecordedAgain() throws Exception {
    Path app = Files.createDirectories(dir.resolve("app"));
    Files.copy(KandevProcess.jar(), app.resolve("kandev-recovery.jar"));
    Files.createSymbolicLink(app.resolve("lib"), KandevProcess.jar().resolveSibling("lib"));
    Files.copy(LAUNCHER, app.resolve("kandev-recovery"));
    assertThat(app.resolve("kandev-recovery").toFile().setExecutable(true)).isTrue();
    Path archive = app.resolve("kandev-recovery.jsa");

    try (RealTemporalServer.Flagged temporal = RealTemporalServer.startWith(dir.resolve("temporal"), null, List.of())) {
      // No worker polls this queue: the resume starts, waits 2 s and ends with exit code 7, as with java -jar.
      Map<String, String> env = Map.of("TEMPORAL_ADDRESS", temporal.address(), "KANDEV_TASK_QUEUE", "nobody-polls",
          "KANDEV_DB_SCHEMA", db.database().schema());
      String[] resume = {"resume", "s-1", "--timeout", "2s"};

      assertThat(Files.exists(archive)).isFalse();
      Run recording = run(app, env, null, resume);
      assertThat(recording.exitCode()).as(recording.output()).isEqualTo(ExitCodes.TIMED_OUT);
      assertThat(recording.output()).contains("outcome: none within 2s").doesNotContain("warning", "cds");
      assertThat(archive).as("the first resume records the archive").isNotEmptyFile();
      assertThat(app).isDirectoryNotContaining(path -> path.getFileName().toString().startsWith("kandev-recovery.jsa."));

      Path classLog = dir.resolve("classes.log");
      Run shared = run(app, env, classLog, resume);
      assertThat(shared.exitCode()).as(shared.output()).isEqualTo(ExitCodes.TIMED_OUT);
      assertThat(Files.readString(classLog)).as("classes of the resume path come from the archive")
          .containsPattern("dev\\.kandev\\.recovery\\.worker\\.cli\\.ResumeCommand source: shared objects file \\(top\\)")
          .containsPattern("io\\.temporal\\.client\\.WorkflowClient source: shared objects file \\(top\\)");

      Instant recorded = Files.getLastModifiedTime(archive).toInstant();
      Files.setLastModifiedTime(app.resolve("kandev-recovery.jar"), FileTime.from(recorded.plusSeconds(60)));
      Run afterRebuild = run(app, env, null, resume);
      assertThat(afterRebuild.exitCode()).as(afterRebuild.output()).isEqualTo(ExitCodes.TIMED_OUT);
      assertThat(Files.getLastModifiedTime(archive).toInstant()).as("a jar newer than the archive: recorded again")
          .isAfter(recorded);
    }

    Run usage = run(app, Map.of(), null, "resume");
    assertThat(usage.exitCode()).as(usage.output()).isEqualTo(ExitCodes.USAGE);
    Run version = run(app, Map.of(), null, "--version");
    assertThat(version.exitCode()).isZero();
    assertThat(version.output()).isEqualTo(KandevProcess.versionLine() + "\n");
  }

  @Test
  void withoutAJarItSaysHowToBuildOne() throws Exception {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    Files.copy(LAUNCHER, empty.resolve("kandev-recovery"));
    assertThat(empty.resolve("kandev-recovery").toFile().setExecutable(true)).isTrue();
    Run run = run(empty, Map.of(), null, "--version");
    assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
    assertThat(run.output().strip()).isEqualTo(
        "kandev-recovery: no kandev-recovery.jar (build it with mvn -B -q -DskipTests package, or set KANDEV_JAR)");
  }

  /** Runs the launcher in {@code app}; with {@code classLog}, the JVM logs where each class came from there. */
  private static Run run(Path app, Map<String, String> env, Path classLog, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(app.resolve("kandev-recovery").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    builder.environment().put("JAVA_HOME", Path.of(ProcessHandle.current().info().command().orElseThrow())
        .getParent().getParent().toString());
    if (classLog != null) {
      builder.environment().put("JAVA_TOOL_OPTIONS", "-Xlog:class+load=info:file=" + classLog);
    }
    Process process = builder.start();
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("the launcher ended").isTrue();
    return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }
}
