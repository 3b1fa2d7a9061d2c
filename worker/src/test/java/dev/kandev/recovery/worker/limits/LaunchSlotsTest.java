package dev.kandev.recovery.worker.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.temporal.worker.tuning.ActivitySlotInfo;
import io.temporal.worker.tuning.SlotMarkUsedContext;
import io.temporal.worker.tuning.SlotPermit;
import io.temporal.worker.tuning.SlotReleaseContext;
import io.temporal.worker.tuning.SlotReleaseReason;
import io.temporal.worker.tuning.SlotSupplierFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LaunchSlotsTest {
  private final AtomicInteger running = new AtomicInteger();

  @Test
  void noMoreLaunchesAtOnceThanTheCapTheNextWaitsForARelease() throws Exception {
    LaunchSlots slots = new LaunchSlots(new LaunchLimits(2, 100), running::get);
    SlotSupplierFuture first = slots.reserveSlot(null);
    SlotSupplierFuture second = slots.reserveSlot(null);
    SlotSupplierFuture third = slots.reserveSlot(null);
    assertThat(first).isDone();
    assertThat(second).isDone();
    assertThat(third).isNotDone();
    assertThat(slots.tryReserveSlot(null)).isEmpty();
    assertThat(slots.launching()).as("reserved by pollers, no launch yet").isZero();
    slots.markSlotUsed(used(first.get()));
    slots.markSlotUsed(used(second.get()));
    assertThat(slots.launching()).isEqualTo(2);

    slots.releaseSlot(released(first.get()));
    assertThat(third).isDone();
    assertThat(slots.launching()).isEqualTo(1);
  }

  @Test
  void noLaunchWhileTheRunningAgentsAndLaunchesReachTheAgentCap() throws Exception {
    LaunchSlots slots = new LaunchSlots(new LaunchLimits(2, 3), running::get);
    running.set(2);
    SlotSupplierFuture launch = slots.reserveSlot(null);
    assertThat(launch).isDone();
    SlotSupplierFuture waiting = slots.reserveSlot(null);
    assertThat(waiting).as("2 running + 1 launching = the cap of 3").isNotDone();

    running.set(1);
    slots.agentStopped();
    assertThat(waiting).isDone();
  }

  @Test
  void anAbandonedReservationTakesNoSlot() throws Exception {
    LaunchSlots slots = new LaunchSlots(new LaunchLimits(1, 10), running::get);
    SlotSupplierFuture held = slots.reserveSlot(null);
    SlotSupplierFuture abandoned = slots.reserveSlot(null);
    assertThat(abandoned.abortReservation()).isNull();
    slots.releaseSlot(released(held.get()));
    assertThat(slots.launching()).isZero();
    assertThat(slots.tryReserveSlot(null)).isPresent();
  }

  @Test
  void theLimitsMustMakeSense() {
    assertThatThrownBy(() -> new LaunchLimits(0, 10)).hasMessageContaining("KANDEV_MAX_CONCURRENT_LAUNCHES must be at least 1");
    assertThatThrownBy(() -> new LaunchLimits(4, 2)).hasMessageContaining("KANDEV_MAX_RUNNING_AGENTS (2) must be at least");
  }

  private static SlotMarkUsedContext<ActivitySlotInfo> used(SlotPermit permit) {
    return new SlotMarkUsedContext<>() {
      @Override
      public ActivitySlotInfo getSlotInfo() {
        return null;
      }

      @Override
      public SlotPermit getSlotPermit() {
        return permit;
      }
    };
  }

  private static SlotReleaseContext<ActivitySlotInfo> released(SlotPermit permit) {
    return new SlotReleaseContext<>() {
      @Override
      public SlotReleaseReason getSlotReleaseReason() {
        return SlotReleaseReason.taskComplete();
      }

      @Override
      public SlotPermit getSlotPermit() {
        return permit;
      }

      @Override
      public ActivitySlotInfo getSlotInfo() {
        return null;
      }
    };
  }
}
