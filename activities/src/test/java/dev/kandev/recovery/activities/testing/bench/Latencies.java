package dev.kandev.recovery.activities.testing.bench;

import java.util.Arrays;

/** Latency samples in nanoseconds, summarised as median, p95 and max (nearest rank). Thread-safe. */
public final class Latencies {
  private long[] samples = new long[1024];
  private int size;

  public synchronized void add(long nanos) {
    if (size == samples.length) {
      samples = Arrays.copyOf(samples, size * 2);
    }
    samples[size++] = nanos;
  }

  public synchronized int count() {
    return size;
  }

  public double medianMillis() {
    return percentileMillis(0.50);
  }

  public double p95Millis() {
    return percentileMillis(0.95);
  }

  public synchronized double maxMillis() {
    return size == 0 ? Double.NaN : Arrays.stream(samples, 0, size).max().getAsLong() / 1e6;
  }

  public synchronized double percentileMillis(double p) {
    if (size == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(samples, size);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p * size);
    return sorted[Math.max(0, rank - 1)] / 1e6;
  }
}
