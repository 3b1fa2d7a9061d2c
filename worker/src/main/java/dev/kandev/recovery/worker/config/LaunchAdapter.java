package dev.kandev.recovery.worker.config;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Who launches the agents of this worker's host ({@code KANDEV_LAUNCH_ADAPTER}; docs/contract.md
 * "LaunchAgent contract", docs/kandev.md "Two launch adapters"). The saga (lock, STARTING, lease,
 * snapshot, compensation, settle) is this worker's either way.
 */
public enum LaunchAdapter {
  /** Our agent host: this worker polls its host's queues and launches the agents itself. */
  AGENT_HOST("agent-host"),
  /**
   * Kandev's executor: Kandev's Go activity worker ({@code starters/go/kandevlaunch}) polls the host's
   * queues and launches the agents; this worker must not poll them (two pollers with different
   * activity sets on one queue would misdeliver), and leaves the agents Kandev lost to Kandev's own
   * boot recovery.
   */
  KANDEV_EXECUTOR("kandev-executor");

  public static final String VARIABLE = "KANDEV_LAUNCH_ADAPTER";

  private final String setting;

  LaunchAdapter(String setting) {
    this.setting = setting;
  }

  /** The value of {@link #VARIABLE} that chooses it. */
  public String setting() {
    return setting;
  }

  /** Whether this worker launches its host's agents itself: polls its host's queues, resumes the agents its host lost. */
  public boolean launchesHere() {
    return this == AGENT_HOST;
  }

  /** {@code value} of {@link #VARIABLE}; a value that names no adapter is refused, naming the ones there are. */
  public static LaunchAdapter of(String value) {
    return Arrays.stream(values()).filter(adapter -> adapter.setting.equals(value)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException(VARIABLE + " must be one of "
            + Arrays.stream(values()).map(LaunchAdapter::setting).collect(Collectors.joining(", ")) + ", got '" + value + "'"));
  }
}
