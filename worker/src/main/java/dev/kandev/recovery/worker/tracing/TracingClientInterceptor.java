package dev.kandev.recovery.worker.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.temporal.common.interceptors.WorkflowClientCallsInterceptor;
import io.temporal.common.interceptors.WorkflowClientCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowClientInterceptorBase;

/**
 * A workflow this process starts (the {@code resume} command, restart recovery) begins its trace
 * here: a {@code StartWorkflow:<type>} span, child of the current one, whose context goes to the
 * workflow in its header.
 */
final class TracingClientInterceptor extends WorkflowClientInterceptorBase {
  private final Tracer tracer;

  TracingClientInterceptor(Tracer tracer) {
    this.tracer = tracer;
  }

  @Override
  public WorkflowClientCallsInterceptor workflowClientCallsInterceptor(WorkflowClientCallsInterceptor next) {
    return new WorkflowClientCallsInterceptorBase(next) {
      @Override
      public WorkflowStartOutput start(WorkflowStartInput input) {
        return TemporalSpans.around(startSpan(input), () -> super.start(input));
      }

      @Override
      public WorkflowSignalWithStartOutput signalWithStart(WorkflowSignalWithStartInput input) {
        return TemporalSpans.around(startSpan(input.getWorkflowStartInput()), () -> super.signalWithStart(input));
      }
    };
  }

  private Span startSpan(WorkflowClientCallsInterceptor.WorkflowStartInput input) {
    Span span = tracer.spanBuilder("StartWorkflow:" + input.getWorkflowType())
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute(TemporalSpans.WORKFLOW_ID, input.getWorkflowId())
        .startSpan();
    TracingHeader.inject(Context.current().with(span), input.getHeader());
    return span;
  }
}
