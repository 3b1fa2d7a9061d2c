package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The packaged CLI's answers to what a new user gets wrong: nothing running, bad arguments, --help. */
public class CliErrorsIT {
  @RegisterExtension final TestDatabase db = new TestDatabase();
  @TempDir Path tempDir;

  private Map<String, String> env(String temporalAddress) {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", temporalAddress);
    env.put("KANDEV_DB_SCHEMA", db.database().schema());
    env.put("KANDEV_STATE_DIR", tempDir.resolve("state").toString());
    return env;
  }

  private KandevProcess.Result run(Map<String, String> env, String... args) {
    return KandevProcess.run(env, tempDir.resolve("logs"), Duration.ofSeconds(60), args);
  }

  @Test
  void temporalUnreachableIsOneLineNamingTheAddressAndWhatToStartWithinSeconds() {
    String address = "127.0.0.1:" + RealTemporalServer.freePort();

    // What a JVM start costs on this machine now (it may be busy), to compare the wait with.
    long start = System.nanoTime();
    KandevProcess.Result version = run(env(address), "--version");
    assertThat(version.exitCode()).isZero();
    assertThat(version.output()).isEqualTo(KandevProcess.versionLine() + "\n");
    Duration jvm = Duration.ofNanos(System.nanoTime() - start);
    start = System.nanoTime();
    KandevProcess.Result resume = run(env(address), "resume", "s-1");
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(resume.exitCode()).as(resume.output()).isEqualTo(ExitCodes.TEMPORAL_UNREACHABLE);
    assertThat(resume.output().strip().lines()).as(resume.output()).singleElement().asString()
        .startsWith("kandev-recovery resume: cannot reach Temporal at " + address + ": Connection refused")
        .contains("temporal server start-dev", "TEMPORAL_ADDRESS");
    // A refused connection is retried for 1 s and then reported, where a server that answers slowly is
    // waited for 60 s (TemporalConnection): the bound tells the two apart, generous for a busy machine,
    // and is no performance threshold.
    assertThat(took.minus(jvm)).as("beyond the JVM's start (%s)", jvm).isLessThan(Duration.ofSeconds(30));
  }

  @Test
  void postgresqlUnreachableIsOneLineNamingTheUrlAndWhatToStart() {
    try (DevTemporalServer temporal = RealTemporalServer.start(tempDir.resolve("temporal"))) {
      Map<String, String> env = env(temporal.address());
      String url = "jdbc:postgresql://127.0.0.1:" + RealTemporalServer.freePort() + "/postgres";
      env.put("KANDEV_DB_URL", url);

      KandevProcess.Result worker = run(env, "worker");

      assertThat(worker.exitCode()).as(worker.output()).isEqualTo(ExitCodes.DATABASE_UNREACHABLE);
      assertThat(worker.output()).doesNotContain("\tat ", "Exception");
      assertThat(worker.output().strip().lines().filter(l -> l.startsWith("kandev-recovery worker: ")))
          .singleElement().asString()
          .startsWith("kandev-recovery worker: cannot reach PostgreSQL at " + url + ": Connection refused")
          .contains("KANDEV_DB_URL");
    }
  }

  @Test
  void aBlankSessionIsAUsageError() {
    for (String blank : new String[] {"", " "}) {
      KandevProcess.Result resume = run(env("127.0.0.1:1"), "resume", blank);

      assertThat(resume.exitCode()).as(resume.output()).isEqualTo(ExitCodes.USAGE);
      assertThat(resume.output().strip().lines()).as(resume.output()).singleElement().asString()
          .isEqualTo("kandev-recovery resume: SESSION is missing (see kandev-recovery resume --help)");
    }
  }

  @Test
  void aBadSettingIsOneLineNamingTheVariableTheValueAndWhatIsExpected() {
    Map<String, String> env = env("127.0.0.1:1");
    env.put("KANDEV_RESUME_LOCK_TTL_SECONDS", "PT15M");
    KandevProcess.Result worker = run(env, "worker");

    assertThat(worker.exitCode()).as(worker.output()).isEqualTo(ExitCodes.USAGE);
    assertThat(worker.output().strip().lines()).as(worker.output()).singleElement().asString()
        .isEqualTo("kandev-recovery worker: KANDEV_RESUME_LOCK_TTL_SECONDS must be a whole number of seconds, got 'PT15M'");

    Map<String, String> app = env("127.0.0.1:1");
    app.put("KANDEV_GITHUB_APP_ID", "777");
    KandevProcess.Result resume = run(app, "resume", "s-1");

    assertThat(resume.exitCode()).as(resume.output()).isEqualTo(ExitCodes.USAGE);
    assertThat(resume.output().strip().lines()).as(resume.output()).singleElement().asString()
        .startsWith("kandev-recovery resume: KANDEV_GITHUB_APP_ID is set, so KANDEV_GITHUB_APP_PRIVATE_KEY_FILE");
  }

  @Test
  void helpListsTheEnvironmentVariablesOfEachCommand() {
    assertThat(run(Map.of(), "resume", "--help").output())
        .contains("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "KANDEV_TASK_QUEUE", "Exit codes");
    assertThat(run(Map.of(), "update-runtime", "--help").output()).contains("TEMPORAL_ADDRESS", "KANDEV_TASK_QUEUE");
    assertThat(run(Map.of(), "worker", "--help").output())
        .contains("TEMPORAL_ADDRESS", "KANDEV_DB_URL", "KANDEV_LOG_FORMAT", "KANDEV_AGENTS_FILE", "Exit codes");
  }
}
