package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.store.Database;
import io.temporal.testserver.TestServer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Everything in one process for a developer: migrations against the configured PostgreSQL, an
 * in-process Temporal test server bound to a port, and the worker. Ctrl-C stops it cleanly.
 */
@Command(
    name = "dev",
    mixinStandardHelpOptions = true,
    description = "Run the worker against an embedded Temporal test server (in-memory) and the configured PostgreSQL.")
final class DevCommand implements Callable<Integer> {
  @Option(
      names = "--temporal-port",
      description = "Port of the embedded Temporal server (gRPC). Default: the port of TEMPORAL_ADDRESS (7233).")
  Integer temporalPort;

  @Override
  public Integer call() throws Exception {
    Settings settings = Settings.fromEnvironment();
    int port = temporalPort != null ? temporalPort : settings.temporalPort();
    try (Database database = Database.open(settings.database()).migrate();
        var server = TestServer.createPortBoundServer(port, false);
        TemporalConnection temporal = TemporalConnection.open("127.0.0.1:" + port, settings.temporalNamespace(), settings.workerInstance())) {
      System.out.printf("PostgreSQL   %s (schema %s) migrated%n", settings.database().url(), database.schema());
      SearchAttributeRegistrar.register(temporal.service, settings.temporalNamespace());
      System.out.printf("Temporal     127.0.0.1:%d (embedded test server, namespace %s)%n", port, settings.temporalNamespace());
      System.out.printf("Worker       task queue %s, instance %s%n", settings.taskQueue(), settings.workerInstance());
      RunningWorker.runUntilStopped(settings, database, temporal.client);
    }
    return 0;
  }
}
