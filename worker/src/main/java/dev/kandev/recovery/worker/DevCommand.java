package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.store.Database;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testserver.TestServer;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
    CountDownLatch stopped = new CountDownLatch(1);
    try (Database database = Database.open(settings.database()).migrate();
        var server = TestServer.createPortBoundServer(port, false)) {
      System.out.printf("PostgreSQL   %s (schema %s) migrated%n", settings.database().url(), database.schema());
      WorkflowServiceStubs service =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:" + port).build());
      SearchAttributeRegistrar.register(service, settings.temporalNamespace());
      WorkflowClient client =
          WorkflowClient.newInstance(
              service, WorkflowClientOptions.newBuilder().setNamespace(settings.temporalNamespace()).build());
      try (Components components = new Components(settings, database);
          RecoveryWorker worker = RecoveryWorker.start(client, settings.taskQueue(), components)) {
        System.out.printf("Temporal     127.0.0.1:%d (embedded test server, namespace %s)%n", port, settings.temporalNamespace());
        System.out.printf("Worker       task queue %s, instance %s%n", settings.taskQueue(), settings.workerInstance());
        System.out.println("Ready. Press Ctrl-C to stop.");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          stopped.countDown();
          System.out.println("Stopping...");
        }));
        stopped.await();
      } finally {
        service.shutdown();
      }
    }
    return 0;
  }
}
