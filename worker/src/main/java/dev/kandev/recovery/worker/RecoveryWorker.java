package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.resume.StoreFailureInterceptor;
import dev.kandev.recovery.worker.logging.RecoveryMdcInterceptor;
import dev.kandev.recovery.workflows.resume.LaunchHeartbeat;
import io.temporal.client.WorkflowClient;
import dev.kandev.recovery.worker.limits.LaunchSlots;
import io.temporal.worker.WorkerFactory;
import dev.kandev.recovery.worker.testing.StepFreezeInterceptor;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.worker.WorkerFactoryOptions;
import java.util.ArrayList;
import java.util.List;
import io.temporal.worker.WorkerOptions;
import io.temporal.worker.tuning.CompositeTuner;
import io.temporal.worker.tuning.FixedSizeSlotSupplier;
import java.util.concurrent.TimeUnit;

/** The Temporal workers of one process: on the shared queue and on its host's two queues (see {@link Components#register}). */
public final class RecoveryWorker implements AutoCloseable {
  /** Slots of the task kinds a launch queue never carries (workflow, local activity, Nexus tasks). */
  private static final int UNUSED_SLOTS = 1;
  private final WorkerFactory factory;

  private RecoveryWorker(WorkerFactory factory) {
    this.factory = factory;
  }

  public static RecoveryWorker start(WorkflowClient client, String taskQueue, Components components) {
    WorkerFactory factory = WorkerFactory.newInstance(client, factoryOptions());
    components.register(factory::newWorker, taskQueue);
    factory.start();
    return new RecoveryWorker(factory);
  }

  /**
   * The interceptors every recovery worker runs: the MDC's ids, the store's unhealable failures (and
   * the crash tests' step freeze, when the JVM is asked for it).
   */
  public static WorkerFactoryOptions factoryOptions() {
    List<WorkerInterceptor> interceptors = new ArrayList<>(List.of(new RecoveryMdcInterceptor(), new StoreFailureInterceptor()));
    StepFreezeInterceptor.fromSystemProperty().ifPresent(interceptors::add);
    return WorkerFactoryOptions.newBuilder()
        .setWorkerInterceptors(interceptors.toArray(WorkerInterceptor[]::new))
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

  /** The options of the launch queue's worker: its activity slots are the launch cap's. */
  static WorkerOptions launchOptions(LaunchSlots launchSlots) {
    return WorkerOptions.newBuilder(options())
        .setWorkerTuner(new CompositeTuner(new FixedSizeSlotSupplier<>(UNUSED_SLOTS), launchSlots,
            new FixedSizeSlotSupplier<>(UNUSED_SLOTS), new FixedSizeSlotSupplier<>(UNUSED_SLOTS)))
        .build();
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
