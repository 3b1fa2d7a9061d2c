package dev.kandev.recovery.worker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.client.ResumeSummary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The listing says what a CANCELED run whose resume completed means (docs/contract.md, "Stopping a resume"). */
public class ListResumesLateCancelTest {
  @Test
  void aCanceledRunThatResumedIsExplainedAndACompensatedOneIsNot() {
    assertThat(listed(run("CANCELED", "RESUMED"))).contains("the cancel arrived after the resume completed");
    assertThat(listed(run("CANCELED", "STARTED_FRESH"))).contains("the session is resumed");
    assertThat(listed(run("CANCELED", "CANCELLED"))).doesNotContain("after the resume completed");
    assertThat(listed(run("COMPLETED", "RESUMED"))).doesNotContain("after the resume completed");
  }

  private static ResumeSummary run(String status, String outcome) {
    return new ResumeSummary("kandev-resume-s1", "r1", status, "s1", "t1", outcome, "DONE", Instant.EPOCH, Instant.EPOCH);
  }

  private static String listed(ResumeSummary resume) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ListResumesCommand.print(List.of(resume), new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
