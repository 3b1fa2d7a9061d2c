package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.client.ResumeConflictException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code resume SESSION [--fresh]}: starts (or attaches to) the session's resume and follows it, at
 * most {@code --timeout} whatever the server does; {@code resume SESSION --cancel} ends the
 * session's open resume.
 */
@Command(
    name = "resume",
    mixinStandardHelpOptions = true,
    description = "Resume a task session in its agent's own conversation (or --fresh: start a new one; --cancel: end"
        + " the one that runs).",
    footer = {"", HelpText.TEMPORAL_ENVIRONMENT + ".",
        "Exit codes: 0 resumed (--cancel: ended), 1 the resume failed, 2 usage, 3 refused (a resume of the other mode",
        "runs), 4 unexpected error, 5 Temporal unreachable, 7 no outcome within --timeout (the resume runs on)."})
public final class ResumeCommand extends StarterCommand {
  @Parameters(paramLabel = "SESSION", description = "The task session id.")
  String sessionId;

  @Option(names = "--fresh", description = "Start fresh: clear the stored provider session and create a new one.")
  boolean fresh;

  @Option(names = "--cancel", description = "End the session's running resume: cancel it (it restores the session)"
      + " or, if no worker ever took it, terminate it (there is nothing to undo).")
  boolean cancel;

  @Option(names = "--reason", defaultValue = "user", description = "Why (default: ${DEFAULT-VALUE}).")
  String reason;

  @Override
  String defaultRequester() {
    return "cli";
  }

  @Override
  String defaultTimeout() {
    return "10m";
  }

  @Override
  void checkArguments() {
    requireValidId("SESSION", sessionId);
    if (cancel && fresh) {
      throw usageError("--cancel and --fresh exclude each other");
    }
  }

  @Override
  int runConnected(Settings settings, TemporalConnection temporal) throws InterruptedException {
    ResumeClient client = new ResumeClient(temporal.client, settings.taskQueue());
    TaskQueues queues = taskQueues(settings, temporal);
    if (cancel) {
      return ResumeCancel.cancel(client, temporal.client, queues, settings.taskQueue(), sessionId, timeout, System.out);
    }
    ResumeRequest request =
        new ResumeRequest(sessionId, fresh ? ResumeMode.START_FRESH : ResumeMode.RESUME, reason, requestedBy);
    return follow(client, request, timeout, System.out, queues, settings.taskQueue());
  }

  /** Follows the resume for {@code timeout} from now, without asking about task queues. */
  public static int follow(ResumeClient client, ResumeRequest request, Duration timeout, PrintStream out)
      throws InterruptedException {
    return follow(client, request, timeout, out, TaskQueues.UNKNOWN, "");
  }

  /**
   * Starts (or attaches to) the resume, prints progress lines as they appear and a final outcome line
   * within {@code timeout} whatever the server does; returns the exit code.
   */
  static int follow(ResumeClient client, ResumeRequest request, Duration timeout, PrintStream out, TaskQueues queues,
      String taskQueue) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    ResumeHandle handle;
    request.warning().ifPresent(out::println);
    // Attaching to a run no worker ever took may wait on its progress query (a run without the mode memo).
    CompletableFuture<ResumeHandle> started = CompletableFuture.supplyAsync(() -> client.start(request));
    try {
      handle = started.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ResumeConflictException conflict) {
        out.println("refused: " + conflict.getMessage());
        return ExitCodes.REFUSED;
      }
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      out.println("outcome: none within " + CliDuration.format(timeout) + " — the server did not say whether the resume of"
          + " session " + request.sessionId() + " started; see kandev-recovery resumes --session " + request.sessionId()
          + ", or end it with kandev-recovery resume --cancel " + request.sessionId());
      return ExitCodes.TIMED_OUT;
    }
    out.printf("%s %s (run %s)%n", request.mode() == ResumeMode.START_FRESH ? "starting fresh" : "resuming",
        handle.workflowId(), handle.runId());
    return ResumeOutcomeWait.await(handle, deadline, timeout, out, queues, taskQueue, request.sessionId(), ExitCodes.FAILED);
  }
}
