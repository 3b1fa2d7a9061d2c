package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.CanceledFailure;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The outcome line of a resume that {@code resume} started or attached to, or that {@code resume --cancel} cancelled. */
final class ResumeOutcomeWait {
  private ResumeOutcomeWait() {}

  /**
   * Waits for the run's outcome until {@code deadline} (System.nanoTime) and prints it; returns the
   * exit code ({@code cancelled} for a cancelled resume).
   */
  static int await(ResumeHandle handle, long deadline, Duration timeout, PrintStream out, TaskQueues queues,
      String taskQueue, String sessionId, int cancelled) throws InterruptedException {
    CompletableFuture<ResumeResult> result = CompletableFuture.supplyAsync(() -> {
      try {
        return handle.await(timeout);
      } catch (TimeoutException e) {
        throw new IllegalStateException("no outcome after " + timeout);
      }
    });
    ResumeProgressPrinter progress = new ResumeProgressPrinter(handle, out, queues, taskQueue, sessionId);
    try {
      ResumeResult done = result.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      progress.close();
      out.printf("outcome: %s — session %s is %s, provider session %s (%s)%n", done.outcome(), done.sessionId(),
          done.finalState(), done.providerSessionId(), done.loaded() ? "loaded" : "newly created");
      return ExitCodes.OK;
    } catch (TimeoutException | ExecutionException e) {
      progress.close();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : null;
      if (cause instanceof ResumeFailedException failed) {
        ResumeFailure f = failed.failure();
        out.printf("outcome: FAILED at %s (%s) — %s%n", f.step(), f.failureType(),
            f.sessionState() == null ? "nothing was changed" : "session " + f.sessionId() + " is " + f.sessionState());
        if (progress.printed() == 0) {
          out.println("  " + f.message());
        }
        out.println("  recovery actions: " + (f.recoveryActions().isEmpty() ? "none" : f.recoveryActions()));
        return ExitCodes.FAILED;
      }
      if (cause instanceof WorkflowFailedException wf && wf.getCause() instanceof CanceledFailure) {
        Optional<ResumeOutcome> resumed = handle.outcomeDespiteCancel();
        if (resumed.isPresent()) {
          out.println("outcome: " + resumed.get() + " — session " + sessionId + " is resumed: the cancel arrived after"
              + " the resume completed, so nothing was undone (the run's status is CANCELED)");
          return ExitCodes.OK;
        }
        out.println("outcome: CANCELLED — the resume of session " + sessionId + " undid what it had done and ended");
        return cancelled;
      }
      if (cause == null || cause instanceof IllegalStateException) {
        out.println("outcome: none within " + CliDuration.format(timeout) + " — the resume runs on"
            + (progress.noWorkerPolls() ? " (no worker polls task queue " + taskQueue + ")" : "")
            + ": follow it again with kandev-recovery resume " + sessionId
            + ", or end it with kandev-recovery resume --cancel " + sessionId);
        return ExitCodes.TIMED_OUT;
      }
      out.println("outcome: ERROR — " + cause.getMessage());
      return ExitCodes.ERROR;
    }
  }
}
