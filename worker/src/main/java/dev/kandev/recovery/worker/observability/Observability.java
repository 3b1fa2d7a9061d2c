package dev.kandev.recovery.worker.observability;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.tally.ScopeCloseException;
import com.zaxxer.hikari.HikariDataSource;
import dev.kandev.recovery.activities.store.Database;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.core.metrics.Info;
import io.temporal.common.reporter.MicrometerClientStatsReporter;

/**
 * The worker's meters in one Prometheus registry: the SDK's (its tally scope reports into the
 * registry through {@link MicrometerClientStatsReporter}, as the Temporal Java docs show; it also
 * carries what our workflows and activities count through {@code Workflow.getMetricsScope()} and
 * the activity context's scope), ours ({@link RecoveryMetrics}), Micrometer's standard JVM and process
 * binders ({@code jvm_*}, {@code process_*}, {@code system_*}) and the connection pool's ({@code
 * hikaricp_*}, once {@link #bindPool} is called). {@code dev} and {@code worker} serve the same set.
 */
public final class Observability implements AutoCloseable {
  /** How often the SDK's scope reports into the registry: a scrape sees a count this much later at most. */
  private static final com.uber.m3.util.Duration REPORT_EVERY = com.uber.m3.util.Duration.ofSeconds(2);

  private final PrometheusMeterRegistry registry;
  private final Scope sdkScope;
  private final RecoveryMetrics metrics;
  private final JvmGcMetrics gc;

  private Observability(PrometheusMeterRegistry registry, Scope sdkScope) {
    this.registry = registry;
    this.sdkScope = sdkScope;
    this.metrics = new RecoveryMetrics(registry);
    new JvmMemoryMetrics().bindTo(registry);
    this.gc = new JvmGcMetrics();
    gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
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

  /**
   * The store's meters: its pool's ({@code hikaricp_connections_active}, {@code _pending}, {@code
   * _timeout_total}, …; HikariCP takes the registry once the pool runs) and {@link StoreGauges}.
   */
  public void bindStore(Database database) {
    if (database.dataSource() instanceof HikariDataSource hikari && hikari.getMetricRegistry() == null) {
      hikari.setMetricRegistry(registry);
      StoreGauges.register(registry, database.transactions(), database.layout());
    }
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
    gc.close();
    registry.close();
  }
}
