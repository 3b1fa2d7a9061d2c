package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.process.ProcessTrees;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Go starter ({@code starters/go}, the Kandev API's way in) against {@code dev} on the real
 * Temporal server with the test agent: this starts dev on a fresh schema and runs the module's
 * {@code go test}, which must pass with none of its tests skipped.
 */
public class GoStarterIT {
  private static final Path MODULE = Path.of("..", "starters", "go").toAbsolutePath().normalize();
  /** Compiling the SDK on a cold build cache takes most of it; the tests themselves about a minute. */
  private static final long GO_TEST_MINUTES = 5;

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @BeforeEach
  void setUp() {
    cluster.dev("dev-go");
  }

  @Test
  void goTestPassesAgainstDev() throws Exception {
    Path output = cluster.logDir().resolve("go-test.log");
    ProcessBuilder builder = new ProcessBuilder("go", "test", "-count=1", "-v", "./...")
        .directory(MODULE.toFile())
        .redirectErrorStream(true)
        .redirectOutput(output.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().putAll(Map.of(
        "KANDEV_STARTER_TEMPORAL_ADDRESS", cluster.temporalAddress(),
        "KANDEV_STARTER_DB_URL", postgresUrl(cluster.schema()),
        "KANDEV_STARTER_AGENT_MODE_FILE", cluster.agentModeFile().toString(),
        "KANDEV_STARTER_REQUIRE_ALL", "1"));
    Process go = builder.start();
    boolean ended = go.waitFor(GO_TEST_MINUTES, TimeUnit.MINUTES);
    if (!ended) {
      ProcessTrees.kill(go);
    }
    String log = read(output);
    System.out.println(log);

    assertThat(ended).as("go test ended within %d minutes:%n%s", GO_TEST_MINUTES, log).isTrue();
    assertThat(go.exitValue()).as("go test in %s:%n%s", MODULE, log).isZero();
    assertThat(log).as("no Go test was skipped:%n%s", log).doesNotContain("--- SKIP");
    assertThat(log).contains("--- PASS: TestCancelRestoresThePriorState");
  }

  /** The Go form of the tests' JDBC URL, with the test schema as the search path. */
  static String postgresUrl(String schema) {
    String hostAndDatabase = TestDatabase.URL.replaceFirst("^jdbc:postgresql://", "");
    String separator = hostAndDatabase.contains("?") ? "&" : "?";
    return "postgres://" + TestDatabase.USER + "@" + hostAndDatabase + separator + "search_path=" + schema;
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }
}
