package dev.kandev.recovery.worker.tracing;

import io.opentelemetry.api.trace.Tracer;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;

/** The worker's spans: each workflow run ({@link WorkflowSpans}) and each activity attempt ({@link ActivitySpans}). */
final class TracingWorkerInterceptor extends WorkerInterceptorBase {
  private final Tracer tracer;

  TracingWorkerInterceptor(Tracer tracer) {
    this.tracer = tracer;
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowSpans(next, tracer);
  }

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivitySpans(next, tracer);
  }
}
