package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.store.Database;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/** The production process: the worker against an external Temporal server (TEMPORAL_ADDRESS). */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description = "Run the worker against the Temporal server at TEMPORAL_ADDRESS.")
final class WorkerCommand implements Callable<Integer> {
  @Override
  public Integer call() throws Exception {
    Settings settings = Settings.fromEnvironment();
    CountDownLatch stopped = new CountDownLatch(1);
    WorkflowServiceStubs service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(settings.temporalAddress()).build());
    WorkflowClient client =
        WorkflowClient.newInstance(
            service, WorkflowClientOptions.newBuilder().setNamespace(settings.temporalNamespace()).build());
    if (settings.registerSearchAttributes()) {
      SearchAttributeRegistrar.register(service, settings.temporalNamespace());
    }
    try (Database database = Database.open(settings.database()).migrate();
        Components components = new Components(settings, database);
        RecoveryWorker worker = RecoveryWorker.start(client, settings.taskQueue(), components)) {
      System.out.printf("Worker %s polling %s on %s (namespace %s)%n",
          settings.workerInstance(), settings.taskQueue(), settings.temporalAddress(), settings.temporalNamespace());
      Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
      stopped.await();
    } finally {
      service.shutdown();
    }
    return 0;
  }
}
