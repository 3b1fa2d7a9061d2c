package dev.kandev.recovery.worker.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.Await;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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

  @Test
  void closeReturnsOnlyOnceARunUnderWayHasEnded() throws InterruptedException {
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean ended = new AtomicBoolean();
    Periodic periodic = Periodic.every(Duration.ofMillis(10), "slow-check", () -> {
      started.countDown();
      long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
      while (System.nanoTime() < until) {
        Thread.onSpinWait(); // like a JDBC call: does not stop when interrupted
      }
      ended.set(true);
    });
    assertThat(started.await(10, TimeUnit.SECONDS)).as("the check started").isTrue();

    periodic.close();

    assertThat(ended).as("the run under way ended before close returned").isTrue();
  }
}
