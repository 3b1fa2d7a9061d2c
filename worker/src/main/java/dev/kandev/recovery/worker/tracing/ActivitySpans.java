package dev.kandev.recovery.worker.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.activity.ActivityInfo;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;

/**
 * One attempt of an activity (local ones too): a {@code RunActivity:<type>} span, child of the
 * workflow's {@code StartActivity} span, current while the activity runs, so the spans the
 * activity adds (the agent launch, its ACP handshake) are its children.
 */
final class ActivitySpans extends ActivityInboundCallsInterceptorBase {
  private final Tracer tracer;
  private ActivityExecutionContext context;

  ActivitySpans(ActivityInboundCallsInterceptor next, Tracer tracer) {
    super(next);
    this.tracer = tracer;
  }

  @Override
  public void init(ActivityExecutionContext context) {
    this.context = context;
    super.init(context);
  }

  @Override
  public ActivityOutput execute(ActivityInput input) {
    ActivityInfo info = context.getInfo();
    Context parent = TracingHeader.extract(input.getHeader());
    Span span = TemporalSpans.run(tracer, "RunActivity:" + info.getActivityType(), parent, info.getWorkflowId(), info.getRunId())
        .setAttribute(TemporalSpans.ACTIVITY_ID, info.getActivityId())
        .setAttribute(TemporalSpans.ATTEMPT, info.getAttempt())
        .setAttribute(TemporalSpans.LOCAL, info.isLocal())
        .startSpan();
    return TemporalSpans.around(span, () -> {
      try (Scope scope = parent.with(span).makeCurrent()) {
        return super.execute(input);
      }
    });
  }
}
