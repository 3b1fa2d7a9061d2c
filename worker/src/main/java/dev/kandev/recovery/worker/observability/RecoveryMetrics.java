package dev.kandev.recovery.worker.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.function.Supplier;

/**
 * The worker's own meters outside workflows and activities (those count through Temporal's metrics
 * scope: {@code kandev_resumes}, {@code kandev_resume_duration}, {@code kandev_agent_launches},
 * {@code kandev_runtime_updates}, {@code kandev_runtime_repairs}). docs/operations.md lists them all.
 */
public final class RecoveryMetrics {
  private final MeterRegistry registry;
  private final Counter restartRecoveries;
  private final Counter staleStartingRestored;
  private final Counter agentsReaped;
  private final Counter beats;
  private final Counter beatFailures;

  RecoveryMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.restartRecoveries = Counter.builder("kandev_restart_recoveries")
        .description("Sessions whose agent a gone worker took with it, resumed by restart recovery").register(registry);
    this.staleStartingRestored = Counter.builder("kandev_stale_starting_restored")
        .description("Sessions an ended (e.g. terminated) resume left STARTING, restored").register(registry);
    this.agentsReaped = Counter.builder("kandev_agents_reaped")
        .description("Agents of this worker that no session wanted any more, stopped").register(registry);
    this.beats = Counter.builder("kandev_worker_beats").tag("result", "recorded")
        .description("Presence beats of this worker (others count it gone after a minute without one)").register(registry);
    this.beatFailures = Counter.builder("kandev_worker_beats").tag("result", "failed")
        .description("Presence beats of this worker (others count it gone after a minute without one)").register(registry);
  }

  /** Meters nobody reads (tests and tools that run the parts without an endpoint). */
  public static RecoveryMetrics none() {
    return new RecoveryMetrics(new SimpleMeterRegistry());
  }

  /** Passes {@code resumed} through, counting it. */
  public List<String> restartRecovered(List<String> resumed) {
    restartRecoveries.increment(resumed.size());
    return resumed;
  }

  public List<String> staleStartingRestored(List<String> restored) {
    staleStartingRestored.increment(restored.size());
    return restored;
  }

  public List<String> agentsReaped(List<String> reaped) {
    agentsReaped.increment(reaped.size());
    return reaped;
  }

  /** Runs {@code beat}, counting it in {@code kandev_worker_beats_total} by result. */
  public void beat(Runnable beat) {
    try {
      beat.run();
      beats.increment();
    } catch (RuntimeException e) {
      beatFailures.increment();
      throw e;
    }
  }

  /** {@code kandev_agents_running}: the agents this worker runs now. */
  public void agentsRunning(Supplier<Number> running) {
    Gauge.builder("kandev_agents_running", running).description("Agents this worker runs").register(registry);
  }

  /**
   * {@code kandev_launches_under_way}: this worker's launches now, at most KANDEV_MAX_CONCURRENT_LAUNCHES;
   * the launches waiting beyond the cap are the backlog of the host's launch queue on the server.
   */
  public void launchesUnderWay(Supplier<Number> launching) {
    Gauge.builder("kandev_launches_under_way", launching)
        .description("Agent launches this worker runs now (capped by KANDEV_MAX_CONCURRENT_LAUNCHES)").register(registry);
  }
}
