package dev.kandev.recovery.worker;

import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.util.concurrent.TimeUnit;

/** One Temporal worker on the recovery task queue with every workflow and activity registered. */
public final class RecoveryWorker implements AutoCloseable {
  private final WorkerFactory factory;

  private RecoveryWorker(WorkerFactory factory) {
    this.factory = factory;
  }

  public static RecoveryWorker start(WorkflowClient client, String taskQueue, Components components) {
    WorkerFactory factory = WorkerFactory.newInstance(client);
    Worker worker = factory.newWorker(taskQueue);
    components.register(worker);
    factory.start();
    return new RecoveryWorker(factory);
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
  }
}
