package dev.kandev.recovery.worker.harness;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * One activity of a run as its history records it: the queue it was scheduled on, the worker
 * (instance) that took it, and when the server saw it start and close (null: not yet).
 */
public record ActivityRun(String type, String taskQueue, String worker, Instant started, Instant closed) {

  /** The most runs the server saw under way at the same time (closing before opening at a tie). */
  public static int mostAtOnce(Collection<ActivityRun> runs) {
    record Edge(Instant at, int delta) {}
    List<Edge> edges = new ArrayList<>();
    runs.forEach(run -> {
      edges.add(new Edge(run.started(), 1));
      edges.add(new Edge(run.closed(), -1));
    });
    edges.sort(Comparator.comparing(Edge::at).thenComparingInt(Edge::delta));
    int now = 0;
    int most = 0;
    for (Edge edge : edges) {
      now += edge.delta();
      most = Math.max(most, now);
    }
    return most;
  }

  /** From the first run's start to the last one's close, as the server saw them. */
  public static Duration window(Collection<ActivityRun> runs) {
    Instant first = runs.stream().map(ActivityRun::started).min(Comparator.naturalOrder()).orElseThrow();
    Instant last = runs.stream().map(ActivityRun::closed).max(Comparator.naturalOrder()).orElseThrow();
    return Duration.between(first, last);
  }
}
