package dev.kandev.recovery.worker.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.internal.sync.DestroyWorkflowThreadError;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInfo;
import java.util.concurrent.TimeUnit;

/**
 * A workflow run's span, {@code RunWorkflow:<type>}, child of the span in the start's header, and
 * the parent of its steps' {@code StartActivity} spans ({@link WorkflowOutboundSpans}). Spans are no
 * workflow commands: the run's history and its replay do not change. A worker that rebuilds a run
 * from its history (another worker took it over, or the run left the cache) starts the run's span
 * again, at the run's start; a run that leaves the cache does not end its span.
 */
final class WorkflowSpans extends WorkflowInboundCallsInterceptorBase {
  private final Tracer tracer;
  private Context run = Context.root();

  WorkflowSpans(WorkflowInboundCallsInterceptor next, Tracer tracer) {
    super(next);
    this.tracer = tracer;
  }

  @Override
  public void init(WorkflowOutboundCallsInterceptor outbound) {
    super.init(new WorkflowOutboundSpans(outbound, tracer, () -> run));
  }

  @Override
  public WorkflowOutput execute(WorkflowInput input) {
    WorkflowInfo info = Workflow.getInfo();
    Context parent = TracingHeader.extract(input.getHeader());
    Span span = TemporalSpans.run(tracer, "RunWorkflow:" + info.getWorkflowType(), parent, info.getWorkflowId(), info.getRunId())
        .setStartTimestamp(info.getRunStartedTimestampMillis(), TimeUnit.MILLISECONDS)
        .startSpan();
    run = parent.with(span);
    boolean evicted = false;
    try {
      return super.execute(input);
    } catch (DestroyWorkflowThreadError e) {
      evicted = true;
      throw e;
    } catch (RuntimeException e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      if (!evicted) {
        span.end();
      }
    }
  }
}
