package dev.kandev.recovery.worker.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.function.Supplier;

/**
 * The attribute names of the Temporal spans, the ones the Go SDK's tracing interceptor uses, and
 * how a span covers one call.
 */
final class TemporalSpans {
  static final String WORKFLOW_ID = "temporalWorkflowID";
  static final String RUN_ID = "temporalRunID";
  static final String ACTIVITY_ID = "temporalActivityID";
  static final String ATTEMPT = "temporalAttempt";
  static final String LOCAL = "temporalLocalActivity";

  private TemporalSpans() {}

  /** The span of a workflow or activity run, child of the span its header carried ({@code parent}). */
  static SpanBuilder run(Tracer tracer, String name, Context parent, String workflowId, String runId) {
    return tracer.spanBuilder(name)
        .setParent(parent)
        .setSpanKind(SpanKind.SERVER)
        .setAttribute(WORKFLOW_ID, workflowId)
        .setAttribute(RUN_ID, runId);
  }

  /** Returns what {@code call} returns, {@code span} ended after it and marked ERROR (the exception's class) if it throws. */
  static <T> T around(Span span, Supplier<T> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
      throw e;
    } finally {
      span.end();
    }
  }
}
