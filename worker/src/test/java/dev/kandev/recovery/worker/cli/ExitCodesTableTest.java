package dev.kandev.recovery.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The "Exit codes" table of docs/cli.md and {@link ExitCodes} say the same: one row per constant, each row the constant's meaning. */
class ExitCodesTableTest {
  private static final Path CLI_DOC = Path.of("..", "docs", "cli.md").toAbsolutePath().normalize();
  private static final Pattern ROW = Pattern.compile("^\\| `(\\d+)` \\| (.+) \\|$");
  /** What each constant's row must say; a new constant needs its row in docs/cli.md and its words here. */
  private static final Map<String, String> SAYS = Map.of(
      "OK", "done: resumed or started fresh",
      "FAILED", "the resume or update failed",
      "USAGE", "bad arguments or settings, nothing done",
      "REFUSED", "refused: a resume of the other mode runs",
      "ERROR", "unexpected error, with its stack trace",
      "TEMPORAL_UNREACHABLE", "Temporal unreachable",
      "DATABASE_UNREACHABLE", "PostgreSQL unreachable",
      "TIMED_OUT", "no outcome within `--timeout`",
      "SCHEMA_INCOMPATIBLE", "the schema was contracted by a newer release",
      "KANDEV_SCHEMA_MISMATCH", "Kandev's tables (`KANDEV_KANDEV_SCHEMA`) lack a column we read or write");

  @Test
  void theTableHasOneRowPerExitCodeSayingWhatItMeans() throws Exception {
    Map<Integer, String> rows = tableRows();
    Map<String, Integer> constants = constants();

    assertThat(constants.keySet()).as("constants of ExitCodes, each with its words here").isEqualTo(new TreeMap<>(SAYS).keySet());
    assertThat(constants.values()).as("one code per constant").doesNotHaveDuplicates();
    assertThat(rows.keySet()).as("the table's codes").containsExactlyInAnyOrderElementsOf(constants.values());
    constants.forEach((name, code) ->
        assertThat(rows.get(code)).as("the table's row of %s (%d)", name, code).contains(SAYS.get(name)));
  }

  /** The rows of the table under "## Exit codes": code to meaning. */
  private static Map<Integer, String> tableRows() throws Exception {
    String doc = Files.readString(CLI_DOC);
    int section = doc.indexOf("\n## Exit codes\n");
    assertThat(section).as("docs/cli.md has an \"Exit codes\" section").isNotNegative();
    Map<Integer, String> rows = new TreeMap<>();
    boolean inTable = false;
    for (String line : doc.substring(section + 1).lines().skip(1).toList()) {
      if (line.startsWith("#")) {
        break;
      }
      if (line.startsWith("|")) {
        inTable = true;
        Matcher row = ROW.matcher(line);
        if (row.matches()) {
          assertThat(rows.put(Integer.parseInt(row.group(1)), row.group(2))).as("row of code %s", row.group(1)).isNull();
        }
      } else if (inTable) {
        break;
      }
    }
    return rows;
  }

  private static Map<String, Integer> constants() throws IllegalAccessException {
    Map<String, Integer> constants = new TreeMap<>();
    for (Field field : ExitCodes.class.getDeclaredFields()) {
      int modifiers = field.getModifiers();
      if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers) && field.getType() == int.class) {
        constants.put(field.getName(), field.getInt(null));
      }
    }
    assertThat(constants).as("ExitCodes' constants").isNotEmpty();
    return constants;
  }
}
