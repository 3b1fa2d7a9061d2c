package dev.kandev.recovery.worker;

import dev.kandev.recovery.worker.config.WorkerVersioning;
import dev.kandev.recovery.worker.interceptors.RecoveryMdcInterceptor;
import dev.kandev.recovery.worker.interceptors.StoreFailureInterceptor;
import dev.kandev.recovery.worker.limits.LaunchSlots;
import dev.kandev.recovery.worker.tracing.Tracing;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.resume.LaunchHeartbeat;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import dev.kandev.recovery.worker.interceptors.StepFreezeInterceptor;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.worker.WorkerFactoryOptions;
import java.util.ArrayList;
import java.util.List;
import io.temporal.common.WorkerDeploymentVersion;
import io.temporal.worker.WorkerDeploymentOptions;
import io.temporal.worker.WorkerOptions;
import io.temporal.worker.tuning.CompositeTuner;
import io.temporal.worker.tuning.FixedSizeSlotSupplier;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The Temporal workers of one process, registering what they are given: on the shared queue and on
 * its host's two queues (see {@link #register}). They poll only once the workflow code has run once
 * ({@link BackgroundWarmUp}), so the first real workflow task does not run it cold.
 */
public final class TemporalWorkers implements AutoCloseable {
  /** Slots of the task kinds a launch queue never carries (workflow, local activity, Nexus tasks). */
  private static final int UNUSED_SLOTS = 1;
  private final WorkerFactory factory;

  private TemporalWorkers(WorkerFactory factory) {
    this.factory = factory;
  }

  /** Unversioned workers (in-process tests). */
  public static TemporalWorkers start(WorkflowClient client, String taskQueue, WorkerRegistrations registrations) {
    return start(client, taskQueue, registrations, null, BackgroundWarmUp.start(client, factoryOptions()));
  }

  /**
   * The process's workers, polling as {@code versioning}'s deployment version when it is on (null:
   * unversioned), once {@code warmUp} (started earlier, beside the rest of the process's start) is done.
   */
  public static TemporalWorkers start(WorkflowClient client, String taskQueue, WorkerRegistrations registrations,
      WorkerVersioning versioning, BackgroundWarmUp warmUp) {
    WorkerFactory factory = WorkerFactory.newInstance(client, factoryOptions());
    register(factory::newWorker, taskQueue, registrations, versioning);
    warmUp.await();
    factory.start();
    return new TemporalWorkers(factory);
  }

  /**
   * Registers the workflows and every activity on the queues this worker polls: the shared {@code
   * queue} (workflows, store and broker steps; what starters use), its host's queue (stopping
   * agents, runtime update steps) and its host's launch queue, whose slots {@link LaunchSlots} caps.
   * Every activity is on every queue: the workflows choose where each step goes. A worker whose
   * host's agents Kandev's executor launches polls the shared queue only ({@link
   * WorkerRegistrations#pollsHostQueues}).
   */
  public static void register(BiFunction<String, WorkerOptions, Worker> newWorker, String queue,
      WorkerRegistrations registrations) {
    register(newWorker, queue, registrations, null);
  }

  /**
   * The same, the three workers polling as {@code versioning}'s deployment version when it is on (null:
   * unversioned): a version's queues are all it polls, so a pinned run's launch stays on its version.
   */
  public static void register(BiFunction<String, WorkerOptions, Worker> newWorker, String queue,
      WorkerRegistrations registrations, WorkerVersioning versioning) {
    Object[] activities = registrations.activities().toArray();
    WorkerOptions options = versioned(options(), versioning);
    Worker shared = newWorker.apply(queue, options);
    registrations.workflows().accept(shared, versioning != null && versioning.enabled());
    shared.registerActivitiesImplementations(activities);
    if (!registrations.pollsHostQueues()) {
      // Kandev's launch worker serves LaunchAgent and StopAgent there; a second poller with other
      // activities on the same queue would take tasks it cannot serve.
      return;
    }
    newWorker.apply(RecoveryTaskQueue.ofHost(queue, registrations.host()), options)
        .registerActivitiesImplementations(activities);
    newWorker.apply(RecoveryTaskQueue.launchesOf(queue, registrations.host()),
            versioned(launchOptions(registrations.launchSlots()), versioning))
        .registerActivitiesImplementations(activities);
  }

  /**
   * {@code options} with the deployment version when versioning is on. No default behaviour: each
   * versioned workflow implementation declares its own ({@code @WorkflowVersioningBehavior}, ADR 0002).
   */
  static WorkerOptions versioned(WorkerOptions options, WorkerVersioning versioning) {
    if (versioning == null || !versioning.enabled()) {
      return options;
    }
    return WorkerOptions.newBuilder(options)
        .setDeploymentOptions(WorkerDeploymentOptions.newBuilder()
            .setUseVersioning(true)
            .setVersion(new WorkerDeploymentVersion(versioning.deploymentName(), versioning.buildId()))
            .build())
        .build();
  }

  /**
   * The interceptors every recovery worker runs: the MDC's ids, the store's unhealable failures (and
   * the crash tests' step freeze, when the JVM is asked for it).
   */
  public static WorkerFactoryOptions factoryOptions() {
    List<WorkerInterceptor> interceptors = new ArrayList<>(List.of(new RecoveryMdcInterceptor(), new StoreFailureInterceptor()));
    StepFreezeInterceptor.fromSystemProperty().ifPresent(interceptors::add);
    Tracing.workerInterceptor().ifPresent(interceptors::add);
    return WorkerFactoryOptions.newBuilder()
        .setWorkerInterceptors(interceptors.toArray(WorkerInterceptor[]::new))
        .build();
  }

  /**
   * The SDK's defaults except the heartbeat throttle: by default a heartbeat is sent at most every
   * 80% of the heartbeat timeout, so a launch would survive a host stall of only a fifth of it.
   * Sending every {@link LaunchHeartbeat#SEND_EVERY} lets it survive almost the whole timeout.
   */
  private static WorkerOptions options() {
    return WorkerOptions.newBuilder().setMaxHeartbeatThrottleInterval(LaunchHeartbeat.SEND_EVERY).build();
  }

  /** The options of the launch queue's worker: its activity slots are the launch cap's. */
  private static WorkerOptions launchOptions(LaunchSlots launchSlots) {
    return WorkerOptions.newBuilder(options())
        .setWorkerTuner(new CompositeTuner(new FixedSizeSlotSupplier<>(UNUSED_SLOTS), launchSlots,
            new FixedSizeSlotSupplier<>(UNUSED_SLOTS), new FixedSizeSlotSupplier<>(UNUSED_SLOTS)))
        .build();
  }

  /** The worker polls its task queue: started and not shut down. */
  public boolean isPolling() {
    return factory.isStarted() && !factory.isShutdown() && !factory.isTerminated();
  }

  /**
   * Stops polling and lets the tasks under way finish for up to 10 s, then interrupts what still
   * runs (an npm install's command is killed on interrupt) and waits up to 5 s more.
   */
  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
    if (!factory.isTerminated()) {
      factory.shutdownNow();
      factory.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
