package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import dev.kandev.recovery.workflows.client.InvalidRequestException;
import dev.kandev.recovery.workflows.client.RuntimeUpdateClient;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateRequest;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateResult;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateStatus;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflow;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Starts (or attaches to) the runtime update of one built-in agent, prints its progress lines as
 * they come and the outcome. Exit code 0 on success, 1 when the job failed, 2 when the request was
 * refused before anything started (an invalid id, an agent that is not built in).
 */
@Command(
    name = "update-runtime",
    mixinStandardHelpOptions = true,
    description = "Update the managed npm runtime of a built-in agent (RuntimeUpdateWorkflow) and show its progress.",
    footer = {"", HelpText.TEMPORAL_ENVIRONMENT + ", KANDEV_HOST.",
        "Exit codes: 0 updated, 1 the update failed, 2 usage (e.g. not a built-in agent), 4 unexpected error,",
        "5 Temporal unreachable, 7 no outcome within --timeout (the update runs on)."})
public final class UpdateRuntimeCommand extends StarterCommand {
  @Parameters(index = "0", paramLabel = "AGENT", description = "Built-in agent id, e.g. opencode-acp.")
  String agentId;

  @Option(names = "--host", description = "The executor host whose runtime is updated (its workers run the npm steps)."
      + " Default: KANDEV_HOST, else this machine's name.")
  String host;

  @Override
  String defaultRequester() {
    return "cli:" + System.getProperty("user.name", "unknown");
  }

  @Override
  String defaultTimeout() {
    return "15m";
  }

  @Override
  void checkArguments() {
    requireValidId("AGENT", agentId);
    if (BuiltInAgents.KANDEV.find(agentId).isEmpty()) {
      throw usageError("AGENT '" + agentId + "' is not a built-in agent with a managed runtime: "
          + String.join(", ", BuiltInAgents.KANDEV.ids()));
    }
  }

  @Override
  int runConnected(Settings settings, TemporalConnection temporal) throws Exception {
    RuntimeUpdateRequest request = new RuntimeUpdateRequest(agentId, requestedBy, host != null ? host : settings.host());
    RuntimeUpdateClient client = new RuntimeUpdateClient(temporal.client, settings.taskQueue());
    if (!taskQueues(settings, temporal).polled(settings.taskQueue(), false).orElse(true)) {
      System.out.println("waiting: no worker polls task queue " + settings.taskQueue() + ", so nothing runs this update"
          + " until one does: start one (kandev-recovery worker, with KANDEV_TASK_QUEUE=" + settings.taskQueue() + "),"
          + " or end the update (nothing ran: nothing to undo): temporal workflow terminate --workflow-id "
          + RuntimeUpdateWorkflow.workflowId(agentId));
    }
    // The progress query waits as long as no worker takes it: the deadline holds on this thread.
    GatedOutput out = new GatedOutput(System.out);
    CompletableFuture<Integer> followed = CompletableFuture.supplyAsync(() -> {
      try {
        return follow(client, request, timeout, out);
      } catch (TimeoutException e) {
        return ExitCodes.TIMED_OUT;
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    int code;
    try {
      code = followed.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      code = ExitCodes.TIMED_OUT;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
    out.close();
    if (code == ExitCodes.TIMED_OUT) {
      System.out.println("outcome: none within " + CliDuration.format(timeout) + " — the update of " + agentId
          + " runs on: follow it again with kandev-recovery update-runtime " + agentId);
    }
    return code;
  }

  /** The CLI's behaviour on a given client, so tests can drive it against a test environment. */
  public static int follow(RuntimeUpdateClient client, RuntimeUpdateRequest request, Duration timeout, PrintStream out)
      throws Exception {
    RuntimeUpdateClient.Job job;
    try {
      job = client.start(request);
    } catch (InvalidRequestException e) {
      out.printf("refused [%s]: %s%n", e.type(), e.getMessage());
      return 2;
    }
    out.printf("runtime update %s (run %s)%n", job.workflowId(), job.runId());
    RuntimeUpdateResult result = job.follow(out::println, Duration.ofMillis(300), timeout);
    out.println(outcomeLine(result));
    return result.status() == RuntimeUpdateStatus.SUCCEEDED ? 0 : 1;
  }

  /** The last line: the outcome, the update attempts and what the repair really did. */
  public static String outcomeLine(RuntimeUpdateResult result) {
    if (result.status() == RuntimeUpdateStatus.SUCCEEDED) {
      return "SUCCEEDED: %s %s (ACP protocol %d), %d update attempt(s), repair: %s".formatted(
          result.probe().agentName(), result.probe().agentVersion(), result.probe().protocolVersion(),
          result.attempts(), result.repair().describe());
    }
    return "FAILED [%s]: %s (%d update attempt(s), repair: %s)".formatted(
        result.errorType(), result.error(), result.attempts(), result.repair().describe());
  }
}
