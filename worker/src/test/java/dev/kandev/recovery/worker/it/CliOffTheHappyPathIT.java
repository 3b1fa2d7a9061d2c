package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.redaction.SafeUrl;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One step off the README's path, as a new user takes it, on the packaged jar: each mistake is one
 * line on stderr, no stack trace, the exit code of docs/cli.md's table; a resume no worker takes
 * ends within its --timeout and can be ended with {@code resume --cancel}.
 */
public class CliOffTheHappyPathIT {
  @TempDir static Path serverDir;
  static RealTemporalServer.Flagged temporal;

  @RegisterExtension final TestDatabase db = new TestDatabase();
  @TempDir Path tempDir;

  @BeforeAll
  static void startTemporal() {
    temporal = RealTemporalServer.startWith(serverDir, null, List.of());
  }

  @AfterAll
  static void stopTemporal() throws InterruptedException {
    temporal.close();
  }

  private Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_ADDRESS", temporal.address());
    env.put("KANDEV_DB_SCHEMA", db.database().schema());
    env.put("KANDEV_STATE_DIR", tempDir.resolve("state").toString());
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  /**
   * A bound on a hang, not a performance threshold: generous for a busy machine, and far below what
   * the commands below wait without their {@code --timeout} (10 and 15 minutes); the outcome lines
   * they print say which timeout ended them.
   */
  private static final Duration HANG = Duration.ofMinutes(2);

  private record Run(int exitCode, String stdout, String stderr, Duration took) {}

  private Run run(Map<String, String> env, String... args) {
    long start = System.nanoTime();
    try (KandevProcess cli = KandevProcess.startInOwnSession("cli-" + System.nanoTime(), env, tempDir.resolve("logs"), args)) {
      int code = cli.awaitExit(Duration.ofMinutes(2));
      return new Run(code, cli.stdout(), cli.stderr(), Duration.ofNanos(System.nanoTime() - start));
    }
  }

  /** Exits with {@code code}, prints nothing on stdout and exactly one line on stderr (returned), no stack trace. */
  private AbstractStringAssert<?> assertOneLine(Run run, int code) {
    String all = run.stdout() + run.stderr();
    assertThat(run.exitCode()).as(all).isEqualTo(code);
    assertThat(all).as("no stack trace").doesNotContain("\tat ", "Exception");
    assertThat(run.stdout()).as(all).isEmpty();
    return assertThat(run.stderr().strip().lines()).as(all).singleElement().asString();
  }

  @Test
  void badSettingsAndArgumentsAreOneLineAndExitCode2BeforeAnythingStarts() {
    assertOneLine(run(env("KANDEV_LOG_FORMAT", "yaml"), "resume", "s-1"), ExitCodes.USAGE)
        .isEqualTo("kandev-recovery resume: KANDEV_LOG_FORMAT must be text or json, got 'yaml'");
    assertOneLine(run(env("TEMPORAL_ADDRESS", "garbage"), "resume", "s-1"), ExitCodes.USAGE)
        .isEqualTo("kandev-recovery resume: TEMPORAL_ADDRESS must be HOST:PORT (e.g. 127.0.0.1:7233), got 'garbage'");
    assertOneLine(run(env("KANDEV_DB_URL", "mysql://u:secret@127.0.0.1/x"), "worker"), ExitCodes.USAGE)
        .startsWith("kandev-recovery worker: KANDEV_DB_URL must be jdbc:postgresql://HOST[:PORT]/DATABASE or postgres://")
        .doesNotContain("secret");
    assertOneLine(run(env("KANDEV_HTTP_ADDRESS", "localhost"), "worker"), ExitCodes.USAGE)
        .isEqualTo("kandev-recovery worker: KANDEV_HTTP_ADDRESS must be an IP address to listen on (127.0.0.1, ::1;"
            + " 0.0.0.0 or :: for every interface), got 'localhost'");

    assertOneLine(run(env(), "resume"), ExitCodes.USAGE)
        .isEqualTo("kandev-recovery resume: Missing required parameter: 'SESSION' (see kandev-recovery resume --help)");
    assertOneLine(run(env(), "resumes", "--outcome", "BOGUS"), ExitCodes.USAGE)
        .startsWith("kandev-recovery resumes: --outcome must be one of RESUMED, STARTED_FRESH, FAILED, REJECTED")
        .endsWith("got 'BOGUS' (see kandev-recovery resumes --help)");
    assertOneLine(run(env(), "update-runtime", "no-such-agent"), ExitCodes.USAGE)
        .startsWith("kandev-recovery update-runtime: AGENT 'no-such-agent' is not a built-in agent with a managed runtime:")
        .contains("opencode-acp");
  }

  @Test
  void aPostgresqlThatRefusesTheRoleOrLacksTheDatabaseIsOneLineNamingIt() {
    assertOneLine(run(env("KANDEV_DB_USER", "no_such_role"), "worker"), ExitCodes.DATABASE_UNREACHABLE)
        .startsWith("kandev-recovery worker: PostgreSQL at " + SafeUrl.of(TestDatabase.URL) + " refused the login:")
        .contains("no_such_role", "KANDEV_DB_USER");
    // Kandev's own form of the URL is taken (and the database it names is looked for)
    assertOneLine(run(env("KANDEV_DB_URL", "postgres://127.0.0.1/no_such_database?sslmode=disable"), "worker"),
        ExitCodes.DATABASE_UNREACHABLE)
        .startsWith("kandev-recovery worker: PostgreSQL at jdbc:postgresql://127.0.0.1/no_such_database?sslmode=***"
            + " has no such database:")
        .contains("KANDEV_DB_URL");
  }

  @Test
  void anAgentsFileThatCannotBeReadIsOneLineAndExitCode2() {
    Path missing = tempDir.resolve("no-such-agents.json");
    Run worker = run(env("KANDEV_AGENTS_FILE", missing.toString()), "worker");

    assertThat(worker.exitCode()).as(worker.stdout() + worker.stderr()).isEqualTo(ExitCodes.USAGE);
    assertThat(worker.stdout() + worker.stderr()).doesNotContain("\tat ", "Exception");
    assertThat(worker.stderr().strip().lines()).singleElement().asString()
        .isEqualTo("kandev-recovery worker: KANDEV_AGENTS_FILE " + missing + " cannot be read: " + missing);
  }

  @Test
  void aResumeNoWorkerTakesEndsWithinItsTimeoutSaysWhyAndIsEndedByCancel() {
    Map<String, String> env = env("KANDEV_TASK_QUEUE", "nobody-polls");

    Run resume = run(env, "resume", "s-stray", "--timeout=5s");

    String all = resume.stdout() + resume.stderr();
    assertThat(resume.exitCode()).as(all).isEqualTo(ExitCodes.TIMED_OUT);
    assertThat(resume.took()).as(all).isLessThan(HANG);
    assertThat(resume.stdout().lines().filter(l -> l.startsWith("waiting: no worker polls task queue nobody-polls")))
        .as(all).singleElement().asString().contains("kandev-recovery resume --cancel s-stray");
    assertThat(resume.stdout()).contains("outcome: none within 5s — the resume runs on").doesNotContain("Exception");

    // listed without waiting for the step no worker can answer (by its id: its first workflow task,
    // which sets the search attributes, never ran)
    Run listed = run(env, "resumes", "--running");
    assertThat(listed.exitCode()).as(listed.stdout() + listed.stderr()).isZero();
    assertThat(listed.took()).as(listed.stdout()).isLessThan(HANG);
    assertThat(listed.stdout()).contains("1 resume(s)").contains("resume-session-s-stray ");

    Run cancel = run(env, "resume", "s-stray", "--cancel");
    assertThat(cancel.exitCode()).as(cancel.stdout() + cancel.stderr()).isZero();
    assertThat(cancel.stdout()).startsWith("terminated resume-session-s-stray (run ")
        .contains("no worker had taken it, so nothing was changed");

    Run again = run(env, "resume", "s-stray", "--cancel");
    assertThat(again.stdout().strip()).isEqualTo("no resume of session s-stray runs: nothing to cancel");

    Run update = run(env, "update-runtime", "opencode-acp", "--timeout=3s");
    String updateOutput = update.stdout() + update.stderr();
    assertThat(update.exitCode()).as(updateOutput).isEqualTo(ExitCodes.TIMED_OUT);
    assertThat(update.took()).as(updateOutput).isLessThan(HANG);
    assertThat(update.stdout()).as(updateOutput)
        .contains("waiting: no worker polls task queue nobody-polls",
            "temporal workflow terminate --workflow-id runtime-update-opencode-acp",
            "outcome: none within 3s — the update of opencode-acp runs on")
        .doesNotContain("Exception");
  }
}
