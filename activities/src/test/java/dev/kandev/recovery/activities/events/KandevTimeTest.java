package dev.kandev.recovery.activities.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;

/** Go's time.RFC3339Nano, as Kandev's events carry times. */
class KandevTimeTest {
  @Test
  void theFractionLosesItsTrailingZerosAndAWholeSecondHasNone() {
    assertThat(KandevTime.rfc3339Nano(Instant.parse("2026-12-04T15:33:00Z"))).isEqualTo("2026-12-04T15:33:00Z");
    assertThat(KandevTime.rfc3339Nano(Instant.parse("2026-12-04T15:33:02.120Z"))).isEqualTo("2026-12-04T15:33:02.12Z");
    assertThat(KandevTime.rfc3339Nano(Instant.parse("2026-12-04T15:33:02.000000001Z")))
        .isEqualTo("2026-12-04T15:33:02.000000001Z");
  }

  @Test
  void kandevsNaiveTimestampsAreUtc() {
    assertThat(KandevTime.rfc3339Nano(LocalDateTime.parse("2026-01-02T03:04:05.952899")))
        .isEqualTo("2026-01-02T03:04:05.952899Z");
  }
}
