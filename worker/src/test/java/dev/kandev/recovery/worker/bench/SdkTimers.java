package dev.kandev.recovery.worker.bench;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The Temporal SDK's timers (workflow task and local activity latencies…) in memory, summed over
 * all tags, read as snapshots: the difference of two is a phase's.
 */
final class SdkTimers {
  record Figure(long count, double totalMillis) {
    double meanMillis() {
      return count == 0 ? 0 : totalMillis / count;
    }
  }

  record Snapshot(Map<String, Figure> byName) {
    /** Each timer's count and time since {@code before}; timers that did not move are left out. */
    Map<String, Figure> minus(Snapshot before) {
      Map<String, Figure> moved = new TreeMap<>();
      byName.forEach((name, now) -> {
        Figure then = before.byName.getOrDefault(name, new Figure(0, 0));
        if (now.count() > then.count()) {
          moved.put(name, new Figure(now.count() - then.count(), now.totalMillis() - then.totalMillis()));
        }
      });
      return moved;
    }
  }

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Scope scope = new RootScopeBuilder().reporter(new MicrometerClientStatsReporter(registry))
      .reportEvery(com.uber.m3.util.Duration.ofMillis(100));

  Scope scope() {
    return scope;
  }

  Snapshot snapshot() {
    Map<String, Figure> byName = new TreeMap<>();
    for (Timer timer : registry.getMeters().stream().filter(Timer.class::isInstance).map(Timer.class::cast).toList()) {
      byName.merge(timer.getId().getName(), new Figure(timer.count(), timer.totalTime(TimeUnit.MILLISECONDS)),
          (a, b) -> new Figure(a.count() + b.count(), a.totalMillis() + b.totalMillis()));
    }
    return new Snapshot(byName);
  }
}
