package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.client.LateCancel;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeFilter;
import dev.kandev.recovery.workflows.client.ResumeSummary;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code resumes [--session S] [--task T] [--outcome O] [--running]}: lists resumes from Temporal's visibility store. */
@Command(
    name = "resumes",
    mixinStandardHelpOptions = true,
    description = {"List resumes, newest first, from Temporal's visibility store (a query on the search attributes).",
        HelpText.TEMPORAL_ENVIRONMENT + "."})
public final class ListResumesCommand implements Callable<Integer> {
  private static final List<String> OUTCOMES = outcomes();
  @Spec CommandSpec spec;

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());

  @Option(names = "--session", paramLabel = "S", description = "Only resumes of this session (KandevSessionId).")
  String sessionId;

  @Option(names = "--task", paramLabel = "T", description = "Only resumes of sessions of this task (KandevTaskId).")
  String taskId;

  @Option(names = "--outcome", paramLabel = "O",
      description = "Only resumes with this outcome (KandevOutcome): RESUMED, STARTED_FRESH, FAILED, REJECTED, CANCELLED.")
  String outcome;

  @Option(names = "--running", description = "Only resumes that still run.")
  boolean running;

  @Option(names = "--limit", defaultValue = "50", description = "At most this many (default: ${DEFAULT-VALUE}).")
  int limit;

  @Override
  public Integer call() {
    ResumeFilter filter = filter();
    Settings settings = Settings.fromEnvironment();
    try (TemporalConnection temporal = TemporalConnection.open(settings)) {
      print(new ResumeClient(temporal.client, settings.taskQueue()).list(filter, limit), System.out);
    }
    return 0;
  }

  /** The filter of the options; a filter that could only ever select nothing is a usage error. */
  private ResumeFilter filter() {
    requireValidIfSet("--session", sessionId);
    requireValidIfSet("--task", taskId);
    if (outcome != null && !OUTCOMES.contains(outcome)) {
      throw new ParameterException(spec.commandLine(),
          "--outcome must be one of " + String.join(", ", OUTCOMES) + ", got '" + outcome + "'");
    }
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
    }
    try {
      return new ResumeFilter(sessionId, taskId, outcome, running);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private void requireValidIfSet(String option, String id) {
    if (id != null && id.isBlank()) {
      throw new ParameterException(spec.commandLine(), option + " is blank: leave it out to list them all");
    }
    if (id != null) {
      CliIds.requireValid(spec, option, id);
    }
  }

  /** The values of KandevOutcome on a resume: how it ended, or CANCELLED. */
  private static List<String> outcomes() {
    List<String> all = new ArrayList<>(Arrays.stream(ResumeOutcome.values()).map(Enum::name).toList());
    if (!all.contains("CANCELLED")) {
      all.add("CANCELLED");
    }
    return List.copyOf(all);
  }

  static void print(List<ResumeSummary> resumes, PrintStream out) {
    String format = "%-36s  %-36s  %-10s  %-13s  %-27s  %-19s  %-19s%n";
    out.printf(format, "WORKFLOW ID", "RUN ID", "STATUS", "OUTCOME", "STEP", "STARTED", "CLOSED");
    for (ResumeSummary r : resumes) {
      out.printf(format, r.workflowId(), r.runId(), r.status(), orDash(r.outcome()), orDash(r.step()), time(r.started()),
          time(r.closed()));
    }
    out.printf("%d resume(s)%n", resumes.size());
    if (resumes.stream().anyMatch(ListResumesCommand::resumedDespiteCancel)) {
      out.println("CANCELED with outcome RESUMED or STARTED_FRESH: the cancel arrived after the resume completed;"
          + " the session is resumed, nothing was undone");
    }
  }

  private static boolean resumedDespiteCancel(ResumeSummary resume) {
    return "CANCELED".equals(resume.status()) && LateCancel.standingOutcome(resume.outcome()).isPresent();
  }

  private static String time(Instant instant) {
    return instant == null ? "-" : TIME.format(instant);
  }

  private static String orDash(String value) {
    return Objects.requireNonNullElse(value, "-");
  }
}
