package dev.kandev.recovery.worker.limits;

import io.temporal.worker.tuning.ActivitySlotInfo;
import io.temporal.worker.tuning.SlotMarkUsedContext;
import io.temporal.worker.tuning.SlotPermit;
import io.temporal.worker.tuning.SlotReleaseContext;
import io.temporal.worker.tuning.SlotReserveContext;
import io.temporal.worker.tuning.SlotSupplier;
import io.temporal.worker.tuning.SlotSupplierFuture;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

/**
 * The activity slots of a worker's launch queue: the worker polls for another launch only while fewer
 * than {@code maxLaunches} of its launches run and its running agents plus those launches stay below
 * {@code maxAgents}. A launch beyond the cap is not taken from the server at all: it waits on the
 * host's launch queue, where another worker of the host (or this one, later) takes it.
 */
public final class LaunchSlots implements SlotSupplier<ActivitySlotInfo> {
  private final LaunchLimits limits;
  private final IntSupplier runningAgents;
  private final Deque<CompletableFuture<SlotPermit>> waiting = new ArrayDeque<>();
  /** Slots handed out: to launches under way, and to pollers waiting for one (the SDK reserves before polling). */
  private int held;
  private final Set<SlotPermit> launching = new HashSet<>();

  /** @param runningAgents how many agents this worker runs now; call {@link #agentStopped()} when one stops */
  public LaunchSlots(LaunchLimits limits, IntSupplier runningAgents) {
    this.limits = limits;
    this.runningAgents = runningAgents;
  }

  @Override
  public synchronized SlotSupplierFuture reserveSlot(SlotReserveContext<ActivitySlotInfo> context) {
    if (waiting.isEmpty() && mayLaunch()) {
      held++;
      return SlotSupplierFuture.completedFuture(new SlotPermit());
    }
    CompletableFuture<SlotPermit> slot = new CompletableFuture<>();
    waiting.add(slot);
    return SlotSupplierFuture.fromCompletableFuture(slot, () -> abandon(slot));
  }

  @Override
  public synchronized Optional<SlotPermit> tryReserveSlot(SlotReserveContext<ActivitySlotInfo> context) {
    if (!waiting.isEmpty() || !mayLaunch()) {
      return Optional.empty();
    }
    held++;
    return Optional.of(new SlotPermit());
  }

  @Override
  public synchronized void markSlotUsed(SlotMarkUsedContext<ActivitySlotInfo> context) {
    launching.add(context.getSlotPermit());
  }

  @Override
  public synchronized void releaseSlot(SlotReleaseContext<ActivitySlotInfo> context) {
    launching.remove(context.getSlotPermit());
    held--;
    handOut();
  }

  @Override
  public Optional<Integer> getMaximumSlots() {
    return Optional.of(limits.maxLaunches());
  }

  /** An agent of this worker stopped: a waiting launch may fit now. */
  public synchronized void agentStopped() {
    handOut();
  }

  /** Launches of this worker under way now (slots that got a task). */
  public synchronized int launching() {
    return launching.size();
  }

  private boolean mayLaunch() {
    return held < limits.maxLaunches() && runningAgents.getAsInt() + held < limits.maxAgents();
  }

  private void handOut() {
    while (!waiting.isEmpty() && mayLaunch()) {
      if (waiting.poll().complete(new SlotPermit())) {
        held++;
      }
    }
  }

  /** The poller gave up its reservation (shutdown): a slot already handed to it goes back. */
  private synchronized void abandon(CompletableFuture<SlotPermit> slot) {
    if (!waiting.remove(slot) && slot.isDone() && !slot.isCompletedExceptionally()) {
      held--;
      handOut();
    }
  }
}
