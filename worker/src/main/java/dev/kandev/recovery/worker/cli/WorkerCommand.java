package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.worker.StopSignal;
import dev.kandev.recovery.worker.WorkerProcess;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.observability.Observability;
import dev.kandev.recovery.worker.temporal.SearchAttributeRegistrar;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** The production process: the worker against an external Temporal server (TEMPORAL_ADDRESS). */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description = "Run the worker against the Temporal server at TEMPORAL_ADDRESS.",
    footer = {"", "Environment (docs/configuration.md): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY(_FILE),",
        "TEMPORAL_TLS, TEMPORAL_TLS_*, TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE, KANDEV_TASK_QUEUE,",
        "KANDEV_DB_URL, KANDEV_DB_USER, KANDEV_DB_PASSWORD(_FILE), KANDEV_DB_SCHEMA, KANDEV_DB_POOL_SIZE, KANDEV_HOST,",
        "KANDEV_LAUNCH_ADAPTER,",
        "KANDEV_WORKER_INSTANCE, KANDEV_STATE_DIR, KANDEV_REGISTER_SEARCH_ATTRIBUTES, KANDEV_AGENTS_FILE,",
        "KANDEV_AGENT_PERMISSION_POLICY, KANDEV_ACP_*_TIMEOUT_SECONDS, KANDEV_RESUME_LOCK_TTL_SECONDS,",
        "KANDEV_AGENT_REAP_INTERVAL_SECONDS, KANDEV_CREDENTIAL_BROKER_PORT, KANDEV_GITHUB_APP_ID,",
        "KANDEV_GITHUB_APP_PRIVATE_KEY(_FILE), KANDEV_GITHUB_API_BASE, KANDEV_GITHUB_API_TIMEOUT_SECONDS,",
        "KANDEV_NPM, KANDEV_NPX, KANDEV_NPM_CACHE, KANDEV_NPM_REGISTRY, KANDEV_NPM_UPDATE_TIMEOUT_SECONDS,",
        "KANDEV_NPM_PROBE_TIMEOUT_SECONDS, KANDEV_HTTP_PORT, KANDEV_LOG_LEVEL, KANDEV_LOG_FORMAT, KANDEV_WORKER_VERSIONING,",
        "KANDEV_DEPLOYMENT_NAME, KANDEV_BUILD_ID, KANDEV_RETENTION_*_DAYS, KANDEV_RETENTION_INTERVAL_SECONDS,",
        "KANDEV_RETENTION_BATCH_SIZE. Durations are whole seconds.",
        "Exit codes: 0 stopped, 2 bad settings or search attributes missing on the server, 4 unexpected error,",
        "5 Temporal unreachable, 6 PostgreSQL unreachable, 8 schema contracted by a newer release (docs/upgrades.md),",
        "9 kandev layout: Kandev's tables lack a column we use (docs/kandev.md)."})
public final class WorkerCommand implements Callable<Integer> {
  @Override
  public Integer call() throws Exception {
    Settings settings = Settings.fromEnvironment();
    try (StopSignal stop = StopSignal.install();
        Observability observability = Observability.create();
        TemporalConnection temporal = TemporalConnection.open(settings, observability.sdkScope())) {
      if (settings.registerSearchAttributes()) {
        SearchAttributeRegistrar.register(temporal.service, settings.temporalNamespace());
      }
      SearchAttributeRegistrar.requireRegistered(temporal.service, settings.temporalNamespace());
      try (Database database = Database.open(settings.database()).migrate()) {
        System.out.printf("Worker %s polling %s on %s (namespace %s)%n",
            settings.workerInstance(), settings.taskQueue(), settings.temporalAddress(), settings.temporalNamespace());
        WorkerProcess.serve(settings, database, temporal.client, stop, "worker", observability);
      }
    }
    return 0;
  }
}
