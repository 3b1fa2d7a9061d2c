package dev.kandev.recovery.worker.limits;

/**
 * What one worker takes on at once: {@code maxLaunches} launches under way (each spawns an agent and
 * runs its handshake: the CPU-heavy part), and {@code maxAgents} agents running, launches included.
 */
public record LaunchLimits(int maxLaunches, int maxAgents) {
  public static final int DEFAULT_MAX_LAUNCHES = 4;
  public static final int DEFAULT_MAX_AGENTS = 256;

  public LaunchLimits {
    if (maxLaunches < 1) {
      throw new IllegalArgumentException("KANDEV_MAX_CONCURRENT_LAUNCHES must be at least 1, got " + maxLaunches);
    }
    if (maxAgents < maxLaunches) {
      throw new IllegalArgumentException("KANDEV_MAX_RUNNING_AGENTS (" + maxAgents
          + ") must be at least KANDEV_MAX_CONCURRENT_LAUNCHES (" + maxLaunches + ")");
    }
  }

  public static LaunchLimits defaults() {
    return new LaunchLimits(DEFAULT_MAX_LAUNCHES, DEFAULT_MAX_AGENTS);
  }
}
