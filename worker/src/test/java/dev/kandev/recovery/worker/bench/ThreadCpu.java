package dev.kandev.recovery.worker.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** This JVM's threads by CPU between two readings: who spends the JVM's background. */
final class ThreadCpu {
  private final Map<Long, Long> nanos;

  private ThreadCpu(Map<Long, Long> nanos) {
    this.nanos = nanos;
  }

  static ThreadCpu read() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> nanos = new HashMap<>();
    for (long id : threads.getAllThreadIds()) {
      long cpu = threads.getThreadCpuTime(id);
      if (cpu >= 0) {
        nanos.put(id, cpu);
      }
    }
    return new ThreadCpu(nanos);
  }

  /** All of the JVM's Java threads since {@code before}, CPU-ms per second (not the JIT compiler's or GC's). */
  double allPerSecond(ThreadCpu before, double seconds) {
    return nanos.entrySet().stream().mapToLong(e -> e.getValue() - before.nanos.getOrDefault(e.getKey(), 0L)).sum()
        / 1e6 / seconds;
  }

  /** The {@code n} threads that spent most since {@code before}, in CPU-ms per second of {@code seconds}. */
  String top(ThreadCpu before, double seconds, int n) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    return nanos.entrySet().stream()
        .map(e -> Map.entry(e.getKey(), e.getValue() - before.nanos.getOrDefault(e.getKey(), 0L)))
        .sorted(Map.Entry.<Long, Long>comparingByValue(Comparator.reverseOrder()))
        .limit(n)
        .map(e -> {
          ThreadInfo info = threads.getThreadInfo(e.getKey());
          String name = info == null ? "thread " + e.getKey() + " (ended)" : info.getThreadName();
          return String.format(Locale.ROOT, "%s %.0f", name, e.getValue() / 1e6 / seconds);
        })
        .collect(Collectors.joining("; "));
  }
}
