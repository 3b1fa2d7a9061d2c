package dev.kandev.recovery.worker.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.interceptors.Header;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TracingHeaderTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN = "00f067aa0ba902b7";

  /** What the Go SDK's contrib/opentelemetry interceptor writes: a JSON map under _tracer-data. */
  private static Header goHeader(String json) {
    Payload payload = Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFrom(json, StandardCharsets.UTF_8))
        .build();
    return new Header(Map.of("_tracer-data", payload));
  }

  @Test
  void readsTheSpanTheGoStarterWrote() {
    Context context = TracingHeader.extract(goHeader("{\"traceparent\":\"00-" + TRACE + "-" + SPAN + "-01\"}"));

    SpanContext span = Span.fromContext(context).getSpanContext();
    assertThat(span.isRemote()).isTrue();
    assertThat(span.getTraceId()).isEqualTo(TRACE);
    assertThat(span.getSpanId()).isEqualTo(SPAN);
    assertThat(span.isSampled()).isTrue();
  }

  @Test
  void writesWhatItReads() {
    SpanContext parent = SpanContext.create(TRACE, SPAN, TraceFlags.getSampled(), TraceState.getDefault());
    Header header = new Header(new HashMap<>());

    TracingHeader.inject(Context.root().with(Span.wrap(parent)), header);

    assertThat(header.getValues().get("_tracer-data").getData().toStringUtf8())
        .isEqualTo("{\"traceparent\":\"00-" + TRACE + "-" + SPAN + "-01\"}");
    assertThat(Span.fromContext(TracingHeader.extract(header)).getSpanContext().getSpanId()).isEqualTo(SPAN);
  }

  @Test
  void noSpanOrAnUnreadableOneIsTheRoot() {
    assertThat(TracingHeader.extract(Header.empty())).isSameAs(Context.root());
    assertThat(TracingHeader.extract(goHeader("not json"))).isSameAs(Context.root());
    Header none = new Header(new HashMap<>());
    TracingHeader.inject(Context.root(), none);
    assertThat(none.getValues()).isEmpty();
  }
}
