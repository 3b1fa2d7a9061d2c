package dev.kandev.recovery.worker;

import dev.kandev.recovery.worker.limits.LaunchSlots;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * What the Temporal workers of one process register, as {@link Components} built it.
 *
 * @param host the executor host whose queues the worker polls besides the shared one
 * @param workflows registers the workflow implementations on the shared queue's worker, told whether
 *     it polls as a deployment version (only then may they declare a versioning behaviour)
 * @param activities one implementation of each activity interface
 * @param launchSlots the launch queue's activity slots: the launch cap
 * @param pollsHostQueues whether the worker polls its host's queues: false where Kandev's launch worker
 *     polls them ({@code KANDEV_LAUNCH_ADAPTER=kandev-executor})
 */
public record WorkerRegistrations(String host, BiConsumer<Worker, Boolean> workflows, List<Object> activities, LaunchSlots launchSlots,
    boolean pollsHostQueues) {
  /** A worker that launches its host's agents itself (our agent host). */
  public WorkerRegistrations(String host, BiConsumer<Worker, Boolean> workflows, List<Object> activities, LaunchSlots launchSlots) {
    this(host, workflows, activities, launchSlots, true);
  }
}
