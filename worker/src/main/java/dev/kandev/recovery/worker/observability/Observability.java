package dev.kandev.recovery.worker.observability;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.tally.ScopeCloseException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;
import io.temporal.common.reporter.MicrometerClientStatsReporter;

/**
 * The worker's meters in one Prometheus registry: the SDK's (its tally scope reports into the
 * registry through {@link MicrometerClientStatsReporter}, as the Temporal Java docs show; it also
 * carries what our workflows and activities count through {@code Workflow.getMetricsScope()} and
 * the activity context's scope) and ours ({@link RecoveryMetrics}).
 */
public final class Observability implements AutoCloseable {
  /** How often the SDK's scope reports into the registry: a scrape sees a count this much later at most. */
  private static final com.uber.m3.util.Duration REPORT_EVERY = com.uber.m3.util.Duration.ofSeconds(2);

  private final PrometheusMeterRegistry registry;
  private final Scope sdkScope;
  private final RecoveryMetrics metrics;

  private Observability(PrometheusMeterRegistry registry, Scope sdkScope) {
    this.registry = registry;
    this.sdkScope = sdkScope;
    this.metrics = new RecoveryMetrics(registry);
  }

  public static Observability create() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Scope scope = new RootScopeBuilder()
        .reporter(new MicrometerClientStatsReporter(registry))
        .reportEvery(REPORT_EVERY);
    return new Observability(registry, scope);
  }

  /** For {@code WorkflowServiceStubsOptions.setMetricsScope}: the client's, the worker's and our workflows' meters. */
  public Scope sdkScope() {
    return sdkScope;
  }

  public RecoveryMetrics metrics() {
    return metrics;
  }

  /**
   * {@code kandev_build_info}: always 1, its labels say which release runs and as which deployment
   * version ({@code deployment} empty when the worker polls unversioned), so a dashboard sees a
   * rollout. A Prometheus info metric: Micrometer would strip a gauge's {@code _info} suffix.
   */
  public void buildInfo(String version, String deployment, String buildId) {
    Info.builder().name("kandev_build_info").help("The release this worker runs")
        .labelNames("version", "deployment", "build_id")
        .register(registry.getPrometheusRegistry())
        .setLabelValues(version, deployment, buildId);
  }

  /** Every meter in Prometheus' text format. */
  public String scrape() {
    return registry.scrape();
  }

  @Override
  public void close() {
    try {
      sdkScope.close();
    } catch (ScopeCloseException e) {
      // its last report is lost; nothing reads it after the process ends
    }
    registry.close();
  }
}
