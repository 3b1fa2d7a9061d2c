package dev.kandev.recovery.workflows.resume;

import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.HostWaitBounds;
import dev.kandev.recovery.workflows.InvalidRequest;
import dev.kandev.recovery.workflows.RecoveryIds;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import io.temporal.common.VersioningBehavior;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * The resume of one task session: checks the request, then runs the {@link ResumeSaga} — lock → read
 * prior state → guarded STARTING → lease → persist snapshot → launch and load → settle → unlock, with
 * a compensation for each step that ran. Where each step runs is in {@link ResumeStubs}, the
 * versioned branches in {@link ResumeChanges}, what the Web UI and the {@code progress} query show
 * in {@link ResumeNarration}, a failure's text in {@link FailedResume}.
 *
 * <p>The launch and the agent's stop go to the queues of the session's executor host (see {@link
 * RecoveryTaskQueue}), so an agent starts only where its workspace lives; a host with no worker that
 * takes the launch within {@link HostWaitBounds} fails the resume with {@link FailureType#AGENT_HOST_UNAVAILABLE}.
 */
public class ResumeSessionWorkflowImpl implements ResumeSessionWorkflow {
  private static final Logger log = Workflow.getLogger(ResumeSessionWorkflowImpl.class);

  private final Duration hostWait;
  private final ResumeStubs stubs = new ResumeStubs();
  private final ResumeNarration narration = new ResumeNarration();

  /** Launches wait for a worker of their host at most {@link HostWaitBounds#DEFAULT}. */
  public ResumeSessionWorkflowImpl() {
    this(HostWaitBounds.DEFAULT);
  }

  /** @param hostWait how long a launch waits for a worker of its host (see {@link HostWaitBounds}) */
  public ResumeSessionWorkflowImpl(Duration hostWait) {
    this.hostWait = HostWaitBounds.validated(hostWait);
  }

  @Override
  public ResumeResult resume(ResumeRequest request) {
    ResumeMetrics metrics = new ResumeMetrics();
    if (request == null) {
      throw invalid("a resume needs an input with a sessionId; the payload was null or missing", metrics);
    }
    narration.began(request);
    RecoveryIds.problem("sessionId", request.sessionId()).ifPresent(problem -> {
      throw invalid(problem, metrics);
    });
    ResumeChanges changes = ResumeChanges.ask();
    narration.valid(changes);
    return new ResumeSaga(request, hostWait, stubs, changes, narration, metrics).run();
  }

  @Override
  public ResumeProgress progress() {
    return narration.progress();
  }

  /** Refused before anything ran: one log line, counted, and the failure to throw. */
  private static ApplicationFailure invalid(String reason, ResumeMetrics metrics) {
    ApplicationFailure failure = InvalidRequest.failure(reason);
    log.warn("resume rejected ({}): {}", FailureType.INVALID_REQUEST, failure.getOriginalMessage());
    metrics.count(ResumeOutcome.FAILED.name(), FailureType.INVALID_REQUEST.type());
    return failure;
  }

  /**
   * The resume as versioned workers run it: pinned, a resume completes on the version it started on
   * (docs/decisions/0002). Only for them: the server refuses a versioning behaviour from an
   * unversioned worker's workflow task.
   */
  public static final class Pinned extends ResumeSessionWorkflowImpl {
    public Pinned(Duration hostWait) {
      super(hostWait);
    }

    @Override
    @WorkflowVersioningBehavior(VersioningBehavior.PINNED)
    public ResumeResult resume(ResumeRequest request) {
      return super.resume(request);
    }
  }
}
