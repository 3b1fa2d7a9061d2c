package dev.kandev.recovery.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

public class CliDurationTest {
  private final CliDuration converter = new CliDuration();

  @ParameterizedTest
  @CsvSource({"90, PT1M30S", "90s, PT1M30S", "15m, PT15M", "2h, PT2H", "PT15M, PT15M", "' 45 ', PT45S"})
  void secondsAUnitOrIsoEachGiveTheDuration(String option, String expected) {
    assertThat(converter.convert(option)).isEqualTo(Duration.parse(expected));
  }

  @ParameterizedTest
  @CsvSource({"abc", "10x", "-5", "1.5m", "''"})
  void anythingElseIsRefusedSayingWhatIsAccepted(String option) {
    assertThatThrownBy(() -> converter.convert(option))
        .isInstanceOf(CommandLine.TypeConversionException.class)
        .hasMessageContaining("use seconds (90), 90s, 15m, 2h or ISO-8601 (PT15M)");
  }

  @Test
  void zeroIsRefused() {
    assertThatThrownBy(() -> converter.convert("0m")).hasMessage("'0m' is not a positive duration");
    assertThatThrownBy(() -> converter.convert("PT0S")).hasMessage("'PT0S' is not a positive duration");
  }

  /** A bad --timeout is a usage error (exit 2) naming the option, before anything connects. */
  @Test
  void aBadTimeoutIsAUsageErrorOfTheCommand() {
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setErr(new PrintWriter(err));

    int exit = cli.execute("resume", "s-1", "--timeout", "soon");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--timeout", "'soon' is not a duration");
  }

  @Test
  void theDefaultsAreMinutes() {
    assertThat(((ResumeCommand) parsed("resume", "s-1")).timeout).isEqualTo(Duration.ofMinutes(10));
    assertThat(((UpdateRuntimeCommand) parsed("update-runtime", "opencode-acp")).timeout).isEqualTo(Duration.ofMinutes(15));
  }

  private static Object parsed(String... args) {
    return Main.commandLine().parseArgs(args).subcommand().commandSpec().userObject();
  }
}
