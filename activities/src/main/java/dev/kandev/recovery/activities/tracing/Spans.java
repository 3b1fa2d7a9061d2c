package dev.kandev.recovery.activities.tracing;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The spans the activities add inside their activity's span: an agent launch, its ACP handshake
 * steps, a credential redemption. They go to the global OpenTelemetry, which stays the no-op one
 * unless the worker installed an SDK (OTEL_* set). Attributes carry ids and names, never a token,
 * a lease or a payload.
 */
public final class Spans {
  public static final String INSTRUMENTATION = "dev.kandev.recovery";
  /** The W3C trace context of a child process's work, by the OpenTelemetry convention for environments. */
  public static final String TRACEPARENT = "TRACEPARENT";

  private Spans() {}

  /** A tracer looked up at each use: a worker installs its SDK after classes are loaded. */
  public static Tracer tracer() {
    return GlobalOpenTelemetry.getTracer(INSTRUMENTATION);
  }

  /** Starts {@code name} as a child of the current span. End it, and make it current for its children. */
  public static Span start(String name) {
    return tracer().spanBuilder(name).startSpan();
  }

  /** Starts {@code name} as a child of {@code parent}. */
  public static Span start(String name, Context parent) {
    return tracer().spanBuilder(name).setParent(parent).startSpan();
  }

  /**
   * Runs {@code work} with {@code span} current (its children hang below it), marks the span failed
   * if the work throws, and ends it.
   */
  public static <T> T within(Span span, Supplier<T> work) {
    try (Scope scope = span.makeCurrent()) {
      return work.get();
    } catch (RuntimeException e) {
      failed(span, e);
      throw e;
    } finally {
      span.end();
    }
  }

  /** Marks the span failed with the failure's class (its message may name a session's token). */
  public static void failed(Span span, Throwable failure) {
    span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
  }

  /**
   * {@code TRACEPARENT} of the current span for a child process's environment (the credential
   * helper sends it with a redemption), or nothing when no span is recorded.
   */
  public static Map<String, String> traceparentOfCurrent() {
    SpanContext context = Span.current().getSpanContext();
    if (!context.isValid()) {
      return Map.of();
    }
    return Map.of(TRACEPARENT, "00-" + context.getTraceId() + "-" + context.getSpanId() + "-"
        + context.getTraceFlags().asHex());
  }
}
