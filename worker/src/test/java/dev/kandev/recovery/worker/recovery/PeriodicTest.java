package dev.kandev.recovery.worker.recovery;

import dev.kandev.recovery.activities.testing.Await;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

public class PeriodicTest {
  @Test
  void aCheckRunsAgainAndAgainAlsoAfterAFailedRun() {
    AtomicInteger runs = new AtomicInteger();
    try (Periodic periodic = Periodic.every(Duration.ofMillis(10), "test-check", () -> {
      if (runs.incrementAndGet() == 1) {
        throw new IllegalStateException("the first run fails");
      }
    })) {
      Await.until(() -> runs.get() >= 3, Duration.ofSeconds(10), "three runs, the first one failing");
    }
  }
}
