package dev.kandev.recovery.worker.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.temporal.common.interceptors.Header;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.workflow.unsafe.WorkflowUnsafe;
import java.util.function.Supplier;

/**
 * A step the workflow schedules, activity or local activity: a {@code StartActivity:<name>} span,
 * child of the run's, whose context goes to the activity in its header. A step replayed from
 * history was traced when it first ran: no span then.
 */
final class WorkflowOutboundSpans extends WorkflowOutboundCallsInterceptorBase {
  private final Tracer tracer;
  private final Supplier<Context> run;

  WorkflowOutboundSpans(WorkflowOutboundCallsInterceptor next, Tracer tracer, Supplier<Context> run) {
    super(next);
    this.tracer = tracer;
    this.run = run;
  }

  @Override
  public <R> ActivityOutput<R> executeActivity(ActivityInput<R> input) {
    Span span = scheduled(input.getActivityName(), false, input.getHeader());
    return TemporalSpans.around(span, () -> super.executeActivity(input));
  }

  @Override
  public <R> LocalActivityOutput<R> executeLocalActivity(LocalActivityInput<R> input) {
    Span span = scheduled(input.getActivityName(), true, input.getHeader());
    return TemporalSpans.around(span, () -> super.executeLocalActivity(input));
  }

  private Span scheduled(String activity, boolean local, Header header) {
    if (WorkflowUnsafe.isReplaying()) {
      return Span.getInvalid();
    }
    Span span = tracer.spanBuilder("StartActivity:" + activity)
        .setParent(run.get())
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute(TemporalSpans.LOCAL, local)
        .startSpan();
    TracingHeader.inject(run.get().with(span), header);
    return span;
  }
}
