package dev.kandev.recovery.worker.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TracingTest {
  @Test
  void offUnlessTheVariablesNameWhereSpansGo() {
    assertThat(Tracing.requested(Map.of())).isFalse();
    assertThat(Tracing.requested(Map.of("OTEL_SERVICE_NAME", "w"))).isFalse();
    assertThat(Tracing.requested(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"))).isTrue();
    assertThat(Tracing.requested(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/v1/traces"))).isTrue();
    assertThat(Tracing.requested(Map.of("OTEL_TRACES_EXPORTER", "otlp"))).isTrue();
  }

  @Test
  void offWhenTheVariablesSaySo() {
    assertThat(Tracing.requested(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_TRACES_EXPORTER", "none")))
        .isFalse();
    assertThat(Tracing.requested(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_SDK_DISABLED", "true")))
        .isFalse();
  }

  @Test
  void offNoInterceptorIsAdded() {
    assertThat(Tracing.clientInterceptors()).isEmpty();
    assertThat(Tracing.workerInterceptor()).isEmpty();
  }
}
