package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Try a resume" block, read from README.md at test time and run by bash from the
 * repository's root as a newcomer runs it: its {@code bin/kandev-recovery} on the packaged jar, its
 * {@code dev} processes, its {@code psql} and its two {@code resume} commands. Only what would clash
 * with other runs on this machine is redirected, through the environment the commands already read:
 * a PostgreSQL database of its own ({@code PGDATABASE}, {@code KANDEV_DB_URL}), a Temporal dev server
 * of its own on a free port that both {@code dev}s use ({@code TEMPORAL_ADDRESS}: {@code dev} starts
 * none then), a state folder ({@code KANDEV_STATE_DIR}) and the temporary folder of its
 * {@code mktemp} ({@code TMPDIR}).
 */
public class TryAResumeIT {
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  private static final String HEADING = "## Try a resume";
  /** The PostgreSQL the block's psql and dev's defaults name. */
  private static final String POSTGRESQL = "jdbc:postgresql://127.0.0.1:5432/";
  private static final Pattern OUTCOME = Pattern.compile(
      "outcome: (\\w+) — session s-1 is (\\w+), provider session (\\S+) \\(([^)]+)\\)");

  @TempDir Path dir;

  @Test
  void theReadmesTryAResumeBlockStartsASessionFreshAndResumesItsConversationAfterDevRestarts() throws Exception {
    String block = block(Files.readString(REPOSITORY.resolve("README.md")));
    String database = "kandev_try_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    execute("CREATE DATABASE " + database);
    try (DevTemporalServer server = RealTemporalServer.start(dir.resolve("temporal"))) {
      Path output = dir.resolve("block.out");
      ProcessBuilder builder = new ProcessBuilder("setsid", "bash", "-c", block)
          .directory(REPOSITORY.toFile())
          .redirectErrorStream(true).redirectOutput(output.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      Map<String, String> env = builder.environment();
      env.keySet().removeIf(name -> name.startsWith("KANDEV_") || name.startsWith("TEMPORAL_") || name.startsWith("PG"));
      env.putAll(Map.of(
          "KANDEV_JAR", KandevProcess.jar().toString(), // what bin/kandev-recovery would find: the packaged jar
          "JAVA_HOME", Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent().getParent().toString(),
          "TEMPORAL_ADDRESS", server.address(),
          "PGDATABASE", database,
          "KANDEV_DB_URL", POSTGRESQL + database,
          "KANDEV_STATE_DIR", dir.resolve("state").toString(),
          "TMPDIR", tmp.toString()));
      Process bash = builder.start();
      boolean ended;
      try {
        ended = bash.waitFor(6, TimeUnit.MINUTES);
      } finally {
        killGroup(bash.pid()); // whatever the block left running (a dev it did not get to stop)
      }
      String printed = Files.readString(output, StandardCharsets.UTF_8);
      assertThat(ended).as("the block ended within 6 minutes:\n%s", printed).isTrue();

      List<Matcher> outcomes = outcomes(printed);
      assertThat(outcomes).as("the two resume commands' outcome lines:\n%s", printed).hasSize(2);
      Matcher fresh = outcomes.get(0);
      Matcher resumed = outcomes.get(1);
      assertThat(List.of(fresh.group(1), fresh.group(2), fresh.group(4))).as("resume s-1 --fresh:\n%s", printed)
          .isEqualTo(List.of("STARTED_FRESH", "WAITING_FOR_INPUT", "newly created"));
      assertThat(List.of(resumed.group(1), resumed.group(2), resumed.group(4))).as("resume s-1:\n%s", printed)
          .isEqualTo(List.of("RESUMED", "WAITING_FOR_INPUT", "loaded"));
      assertThat(resumed.group(3)).as("the same conversation, loaded").isEqualTo(fresh.group(3));

      Path demo = onlyFolder(tmp);
      String first = Files.readString(demo.resolve("dev-1.log"));
      String second = Files.readString(demo.resolve("dev-2.log"));
      assertThat(first).as("the first dev").contains("Temporal     " + server.address() + " (an existing server")
          .contains("Ready.").contains("Stopping...");
      assertThat(second).as("the second dev: a clean stop left it no predecessor to recover from")
          .contains("Ready.").contains("Stopping...").doesNotContain("Predecessor");
      assertThat(query(database, "SELECT status FROM kandev_recovery.executors_running WHERE session_id = 's-1'"))
          .as("the agent the second dev ran, recorded as stopped when it stopped").isEqualTo("stopped");
    } finally {
      execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }
  }

  private static List<Matcher> outcomes(String printed) {
    List<Matcher> outcomes = new ArrayList<>();
    for (String line : printed.lines().toList()) {
      Matcher outcome = OUTCOME.matcher(line);
      if (outcome.find()) {
        outcomes.add(outcome);
      }
    }
    return outcomes;
  }

  /** The one folder the block's {@code mktemp -d} made. */
  private static Path onlyFolder(Path tmp) throws Exception {
    try (var entries = Files.list(tmp)) {
      List<Path> folders = entries.filter(Files::isDirectory).toList();
      assertThat(folders).as("the block's demo folder in %s", tmp).hasSize(1);
      return folders.get(0);
    }
  }

  /** SIGKILL to every process still in the block's process group (setsid: the group is bash's pid). */
  private static void killGroup(long pgid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-KILL", "--", "-" + pgid).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    kill.waitFor(30, TimeUnit.SECONDS); // no process left is the usual case: kill then fails, which is fine
  }

  private static void execute(String sql) throws Exception {
    try (Connection connection = DriverManager.getConnection(POSTGRESQL + "postgres", "postgres", "");
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static String query(String database, String sql) throws Exception {
    try (Connection connection = DriverManager.getConnection(POSTGRESQL + database, "postgres", "");
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      assertThat(rows.next()).as(sql).isTrue();
      return rows.getString(1);
    }
  }

  /** The fenced {@code sh} block right under the README's "Try a resume" heading. */
  static String block(String readme) {
    int heading = readme.indexOf("\n" + HEADING + "\n");
    assertThat(heading).as("README has a \"%s\" section", HEADING).isNotNegative();
    String section = readme.substring(heading + HEADING.length() + 2);
    int next = section.indexOf("\n## ");
    section = next < 0 ? section : section.substring(0, next);
    Matcher fence = Pattern.compile("(?s)\n```sh\n(.*?)\n```\n").matcher("\n" + section);
    assertThat(fence.find()).as("a ```sh block under \"%s\"", HEADING).isTrue();
    return fence.group(1) + "\n";
  }
}
