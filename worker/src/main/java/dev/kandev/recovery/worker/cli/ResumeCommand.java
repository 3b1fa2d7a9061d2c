package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeConflictException;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeProgress;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code resume SESSION [--fresh]}: starts (or attaches to) the session's resume and follows it. */
@Command(
    name = "resume",
    mixinStandardHelpOptions = true,
    description = "Resume a task session in its agent's own conversation (or --fresh: start a new one).",
    footer = {"", "Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS, TEMPORAL_TLS_*,",
        "TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE, KANDEV_TASK_QUEUE.",
        "Exit codes: 0 resumed, 1 the resume failed, 2 usage, 3 refused (a resume of the other mode runs),",
        "4 unexpected error, 5 Temporal unreachable."})
public final class ResumeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "SESSION", description = "The task session id.")
  String sessionId;

  @Option(names = "--fresh", description = "Start fresh: clear the stored provider session and create a new one.")
  boolean fresh;

  @Option(names = "--reason", defaultValue = "user", description = "Why (default: ${DEFAULT-VALUE}).")
  String reason;

  @Option(names = "--requested-by", defaultValue = "cli", description = "Who asks (default: ${DEFAULT-VALUE}).")
  String requestedBy;

  @Option(names = "--timeout", defaultValue = "10m",
      description = "How long to wait for the outcome: seconds, 90s, 15m, 2h or ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Override
  public Integer call() throws Exception {
    CliIds.requireValid(spec, "SESSION", sessionId);
    Settings settings = Settings.fromEnvironment();
    try (TemporalConnection temporal = TemporalConnection.open(settings)) {
      ResumeRequest request =
          new ResumeRequest(sessionId, fresh ? ResumeMode.START_FRESH : ResumeMode.RESUME, reason, requestedBy);
      return follow(new ResumeClient(temporal.client, settings.taskQueue()), request, timeout, System.out);
    }
  }

  /** Prints progress lines as they appear and a final outcome line; returns the exit code. */
  public static int follow(ResumeClient client, ResumeRequest request, Duration timeout, PrintStream out) throws InterruptedException {
    ResumeHandle handle;
    request.warning().ifPresent(out::println);
    try {
      handle = client.start(request);
    } catch (ResumeConflictException e) {
      out.println("refused: " + e.getMessage());
      return ExitCodes.REFUSED;
    }
    out.printf("%s %s (run %s)%n", request.mode() == ResumeMode.START_FRESH ? "starting fresh" : "resuming",
        handle.workflowId(), handle.runId());
    CompletableFuture<ResumeResult> result = CompletableFuture.supplyAsync(() -> {
      try {
        return handle.await(timeout);
      } catch (TimeoutException e) {
        throw new IllegalStateException("no outcome after " + timeout);
      }
    });
    int printed = 0;
    while (true) {
      printed = printNewLines(handle, out, printed);
      try {
        ResumeResult done = result.get(500, TimeUnit.MILLISECONDS);
        printNewLines(handle, out, printed);
        out.printf("outcome: %s — session %s is %s, provider session %s (%s)%n", done.outcome(), done.sessionId(),
            done.finalState(), done.providerSessionId(), done.loaded() ? "loaded" : "newly created");
        return ExitCodes.OK;
      } catch (TimeoutException e) {
        // still running: poll the progress again
      } catch (ExecutionException e) {
        printed = printNewLines(handle, out, printed);
        if (e.getCause() instanceof ResumeFailedException failed) {
          ResumeFailure f = failed.failure();
          out.printf("outcome: FAILED at %s (%s) — %s%n", f.step(), f.failureType(),
              f.sessionState() == null ? "nothing was changed" : "session " + f.sessionId() + " is " + f.sessionState());
          if (printed == 0) {
            out.println("  " + f.message());
          }
          out.println("  recovery actions: " + (f.recoveryActions().isEmpty() ? "none" : f.recoveryActions()));
          return ExitCodes.FAILED;
        }
        out.println("outcome: ERROR — " + e.getCause().getMessage());
        return ExitCodes.ERROR;
      }
    }
  }

  private static int printNewLines(ResumeHandle handle, PrintStream out, int printed) {
    try {
      ResumeProgress progress = handle.progress();
      for (int i = printed; i < progress.lines().size(); i++) {
        out.println("  " + progress.lines().get(i));
      }
      return progress.lines().size();
    } catch (RuntimeException e) {
      return printed; // the query is unavailable until the first workflow task ran
    }
  }
}
