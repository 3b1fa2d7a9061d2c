package dev.kandev.recovery.worker.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.worker.chaos.ChaosSchedule.FaultKind;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The schedule is the seed's: what {@code scripts/chaos --seed} replays. */
class ChaosScheduleTest {
  private static final Duration LONG = Duration.ofMinutes(30);

  @Test
  void theSameSeedGivesTheSameScheduleLineForLine() {
    ChaosSchedule first = ChaosSchedule.of(42, StoreLayout.Kind.KANDEV, Duration.ofSeconds(180), 8);
    ChaosSchedule again = ChaosSchedule.of(42, StoreLayout.Kind.KANDEV, Duration.ofSeconds(180), 8);

    assertThat(again.print()).isEqualTo(first.print());
    assertThat(again.ops()).isEqualTo(first.ops());
    assertThat(again.faults()).isEqualTo(first.faults());
    assertThat(ChaosSchedule.of(43, StoreLayout.Kind.KANDEV, Duration.ofSeconds(180), 8).print()).isNotEqualTo(first.print());
  }

  @Test
  void aLongCampaignHasEveryFaultKindOfItsLayoutAndEnoughOfThem() {
    ChaosSchedule kandev = ChaosSchedule.of(7, StoreLayout.Kind.KANDEV, LONG, 10);
    ChaosSchedule mirror = ChaosSchedule.of(7, StoreLayout.Kind.MIRROR, LONG, 10);

    assertThat(kandev.faults()).extracting(ChaosSchedule.Fault::kind).contains(FaultKind.values());
    assertThat(mirror.faults()).extracting(ChaosSchedule.Fault::kind).doesNotContain(FaultKind.KANDEV_BOOT_ALTER);
    assertThat(kandev.faults()).hasSizeGreaterThanOrEqualTo(200);
    assertThat(kandev.ops()).hasSizeGreaterThanOrEqualTo(500);
    assertThat(kandev.faults()).allSatisfy(f -> assertThat(f.atMs()).isLessThan(LONG.toMillis()));
    assertThat(kandev.faults()).filteredOn(f -> f.kind() == FaultKind.PROCESS_STOP)
        .allSatisfy(f -> assertThat(f.durationMs()).as("inside the 55 s stall budget").isLessThan(55_000));
  }

  @Test
  void aCampaignTooSmallToMeanAnythingIsRefused() {
    assertThatThrownBy(() -> ChaosSchedule.of(1, StoreLayout.Kind.MIRROR, Duration.ofSeconds(10), 8))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 2 sessions and 30 s");
    assertThatThrownBy(() -> ChaosSchedule.of(1, StoreLayout.Kind.MIRROR, Duration.ofSeconds(60), 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
