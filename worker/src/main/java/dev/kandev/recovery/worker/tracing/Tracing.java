package dev.kandev.recovery.worker.tracing;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.interceptors.WorkflowClientInterceptor;
import java.util.Map;
import java.util.Optional;

/**
 * Tracing of this process, off unless the standard OpenTelemetry variables ask for it ({@link
 * #requested}): then the SDK configured by the {@code OTEL_*} variables exports the spans of the
 * workflows this process starts and runs, their activities and what the activities add. Off, no SDK,
 * no exporter thread and no interceptor exist.
 */
public final class Tracing {
  /** What this process sets unless the variables say otherwise: only traces, over OTLP/HTTP. */
  static final Map<String, String> DEFAULTS = Map.of(
      "otel.service.name", "kandev-recovery",
      "otel.exporter.otlp.protocol", "http/protobuf",
      "otel.metrics.exporter", "none",
      "otel.logs.exporter", "none");
  private static final String INSTRUMENTATION = "io.temporal";

  private static volatile Tracer tracer;
  private static boolean installed;

  private Tracing() {}

  /**
   * True when {@code env} names where spans go ({@code OTEL_EXPORTER_OTLP_ENDPOINT}, {@code
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}) or an exporter other than {@code none} ({@code
   * OTEL_TRACES_EXPORTER}), and {@code OTEL_SDK_DISABLED} is not {@code true}.
   */
  static boolean requested(Map<String, String> env) {
    if ("true".equalsIgnoreCase(env.getOrDefault("OTEL_SDK_DISABLED", "").strip())) {
      return false;
    }
    String exporter = env.getOrDefault("OTEL_TRACES_EXPORTER", "").strip();
    if (!exporter.isEmpty()) {
      return !exporter.equalsIgnoreCase("none");
    }
    return !env.getOrDefault("OTEL_EXPORTER_OTLP_ENDPOINT", "").isBlank()
        || !env.getOrDefault("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").isBlank();
  }

  /**
   * Installs the SDK as the global OpenTelemetry when the process's environment requests tracing;
   * its shutdown hook flushes the spans at exit.
   *
   * @throws io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException an {@code OTEL_*} value it cannot use
   */
  public static synchronized void installFromEnvironment() {
    if (installed) {
      return;
    }
    installed = true;
    if (!requested(System.getenv())) {
      // Else the first span lookup asks the SDK's autoconfiguration, which logs (JUL, on stderr) that it is off.
      GlobalOpenTelemetry.set(OpenTelemetry.noop());
      return;
    }
    OpenTelemetry sdk = AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> DEFAULTS)
        .setResultAsGlobal()
        .build()
        .getOpenTelemetrySdk();
    tracer = sdk.getTracer(INSTRUMENTATION);
  }

  /** The client's interceptors: none when tracing is off. */
  public static WorkflowClientInterceptor[] clientInterceptors() {
    Tracer current = tracer;
    return current == null ? new WorkflowClientInterceptor[0]
        : new WorkflowClientInterceptor[] {new TracingClientInterceptor(current)};
  }

  /** The worker's interceptor, when tracing is on. */
  public static Optional<WorkerInterceptor> workerInterceptor() {
    Tracer current = tracer;
    return current == null ? Optional.empty() : Optional.of(new TracingWorkerInterceptor(current));
  }
}
