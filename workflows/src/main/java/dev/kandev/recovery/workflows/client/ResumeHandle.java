package dev.kandev.recovery.workflows.client;

import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeProgress;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A started (or attached) resume: its progress and its outcome. */
public final class ResumeHandle {
  private final WorkflowStub stub;

  ResumeHandle(WorkflowStub stub) {
    this.stub = stub;
  }

  public String workflowId() {
    return stub.getExecution().getWorkflowId();
  }

  public String runId() {
    return stub.getExecution().getRunId();
  }

  /** Whether this run is still running: false once it ended in any way, or if there is no such run. */
  public boolean isRunning() {
    try {
      return stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  /**
   * The mode the resume was started with: from the memo the Java client sets (readable before the
   * run did anything), else from the progress query; empty if neither is available yet.
   */
  public Optional<ResumeMode> mode() {
    Object memo = stub.describe().getMemo("mode", String.class);
    if (memo != null) {
      return Optional.of(ResumeMode.valueOf((String) memo));
    }
    try {
      return Optional.ofNullable(progress().mode());
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Asks the resume to stop; it compensates (no stale STARTING) and ends as cancelled, unless its
   * settle completed first (see {@link #outcomeDespiteCancel}).
   */
  public void cancel() {
    stub.cancel();
  }

  /**
   * For a run that ended CANCELED: the outcome its resume reached if the cancel arrived once its
   * settle completed (the session resumed; see {@link LateCancel}), empty if it compensated.
   */
  public Optional<ResumeOutcome> outcomeDespiteCancel() {
    return LateCancel.standingOutcome(stub.describe().getTypedSearchAttributes().get(RecoverySearchAttributes.OUTCOME));
  }

  public ResumeProgress progress() {
    return stub.query("progress", ResumeProgress.class);
  }

  /** How this run failed, if it has ended with a resume failure (waits at most a second). */
  public Optional<ResumeFailure> failure() {
    try {
      stub.getResult(1, TimeUnit.SECONDS, ResumeResult.class);
      return Optional.empty();
    } catch (WorkflowFailedException e) {
      return e.getCause() instanceof ApplicationFailure failure && failure.getDetails().getSize() > 0
          ? Optional.of(failure.getDetails().get(ResumeFailure.class))
          : Optional.empty();
    } catch (TimeoutException e) {
      return Optional.empty();
    }
  }

  /**
   * Waits for the outcome. A failed resume throws {@link ResumeFailedException} with what failed
   * and which recovery actions the user has.
   */
  public ResumeResult await(Duration timeout) throws TimeoutException {
    try {
      return stub.getResult(timeout.toMillis(), TimeUnit.MILLISECONDS, ResumeResult.class);
    } catch (WorkflowFailedException e) {
      if (e.getCause() instanceof ApplicationFailure failure && failure.getDetails().getSize() > 0) {
        throw new ResumeFailedException(failure.getDetails().get(ResumeFailure.class), e);
      }
      throw e;
    }
  }
}
