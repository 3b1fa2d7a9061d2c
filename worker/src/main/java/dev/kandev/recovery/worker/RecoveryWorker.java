package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.resume.StoreFailureInterceptor;
import dev.kandev.recovery.worker.logging.RecoveryMdcInterceptor;
import dev.kandev.recovery.workflows.resume.LaunchHeartbeat;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.util.concurrent.TimeUnit;

/** One Temporal worker on the recovery task queue with every workflow and activity registered. */
public final class RecoveryWorker implements AutoCloseable {
  private final WorkerFactory factory;

  private RecoveryWorker(WorkerFactory factory) {
    this.factory = factory;
  }

  public static RecoveryWorker start(WorkflowClient client, String taskQueue, Components components) {
    WorkerFactory factory = WorkerFactory.newInstance(client, factoryOptions());
    Worker worker = factory.newWorker(taskQueue, options());
    components.register(worker);
    factory.start();
    return new RecoveryWorker(factory);
  }

  /** The interceptors every recovery worker runs: the MDC's ids, the store's unhealable failures. */
  public static WorkerFactoryOptions factoryOptions() {
    return WorkerFactoryOptions.newBuilder()
        .setWorkerInterceptors(new RecoveryMdcInterceptor(), new StoreFailureInterceptor())
        .build();
  }

  /**
   * The SDK's defaults except the heartbeat throttle: by default a heartbeat is sent at most every
   * 80% of the heartbeat timeout, so a launch would survive a host stall of only a fifth of it.
   * Sending every {@link LaunchHeartbeat#SEND_EVERY} lets it survive almost the whole timeout.
   */
  public static WorkerOptions options() {
    return WorkerOptions.newBuilder().setMaxHeartbeatThrottleInterval(LaunchHeartbeat.SEND_EVERY).build();
  }

  /** The worker polls its task queue: started and not shut down. */
  public boolean isPolling() {
    return factory.isStarted() && !factory.isShutdown() && !factory.isTerminated();
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
  }
}
