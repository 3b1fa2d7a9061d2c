package dev.kandev.recovery.worker.tracing;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.interceptors.Header;
import java.util.HashMap;
import java.util.Map;

/**
 * A span's context in a Temporal header, as the Go SDK's and Java SDK's tracing interceptors carry
 * it: the W3C {@code traceparent} in a JSON map under {@code _tracer-data}. So a span the Go
 * starter started is the parent of the worker's.
 */
final class TracingHeader {
  static final String KEY = "_tracer-data";

  private static final TextMapGetter<Map<String, String>> MAP = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };

  private TracingHeader() {}

  /** Puts {@code context}'s span into {@code header} (the SDK's outbound headers are mutable). */
  static void inject(Context context, Header header) {
    Map<String, String> fields = new HashMap<>();
    W3CTraceContextPropagator.getInstance().inject(context, fields, Map::put);
    if (!fields.isEmpty()) {
      header.getValues().put(KEY, DefaultDataConverter.STANDARD_INSTANCE.toPayload(fields).orElseThrow());
    }
  }

  /** The span a caller put into {@code header}, or the root context when it put none (or garbage). */
  static Context extract(Header header) {
    Payload payload = header == null ? null : header.getValues().get(KEY);
    if (payload == null) {
      return Context.root();
    }
    Map<String, String> fields;
    try {
      @SuppressWarnings("unchecked")
      Map<String, String> decoded = DefaultDataConverter.STANDARD_INSTANCE.fromPayload(payload, Map.class, Map.class);
      fields = decoded;
    } catch (RuntimeException e) {
      return Context.root();
    }
    return W3CTraceContextPropagator.getInstance().extract(Context.root(), fields, MAP);
  }
}
