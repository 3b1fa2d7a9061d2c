package dev.kandev.recovery.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** Arguments refused before anything connects: one line, exit code 2 (CliOffTheHappyPathIT runs the jar). */
class UsageErrorsTest {
  private record Refusal(int exitCode, String err) {}

  private static Refusal execute(String... args) {
    StringWriter err = new StringWriter();
    picocli.CommandLine cli = Main.commandLine();
    cli.setErr(new PrintWriter(err, true));
    return new Refusal(cli.execute(args), err.toString());
  }

  @Test
  void resumesRefusesAFilterThatCouldOnlySelectNothing() {
    assertThat(execute("resumes", "--limit", "0")).isEqualTo(new Refusal(ExitCodes.USAGE,
        "kandev-recovery resumes: --limit must be at least 1, got 0 (see kandev-recovery resumes --help)\n"));
    assertThat(execute("resumes", "--session", "")).isEqualTo(new Refusal(ExitCodes.USAGE,
        "kandev-recovery resumes: --session is blank: leave it out to list them all (see kandev-recovery resumes --help)\n"));
    assertThat(execute("resumes", "--task", " ").err()).startsWith("kandev-recovery resumes: --task is blank");
    assertThat(execute("resumes", "--outcome", "resumed").err())
        .startsWith("kandev-recovery resumes: --outcome must be one of RESUMED, STARTED_FRESH, FAILED, REJECTED");
  }

  @Test
  void aUsageErrorIsOneLineWithAPointerToHelp() {
    assertThat(execute("resume", "s-1", "--cancel", "--fresh")).isEqualTo(new Refusal(ExitCodes.USAGE,
        "kandev-recovery resume: --cancel and --fresh exclude each other (see kandev-recovery resume --help)\n"));
    assertThat(execute("resume", "s-1", "--no-such-option").err().lines()).singleElement().asString()
        .startsWith("kandev-recovery resume: Unknown option: '--no-such-option'").endsWith("(see kandev-recovery resume --help)");
  }
}
