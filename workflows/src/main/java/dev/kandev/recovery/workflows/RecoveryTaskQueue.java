package dev.kandev.recovery.workflows;

/**
 * The contract constants every starter shares (see docs/contract.md), and the names of the per-host
 * queues derived from the shared one. Starters only ever use the shared queue; workers poll all three.
 */
public final class RecoveryTaskQueue {
  /** The default task queue of the worker; configurable with KANDEV_TASK_QUEUE. */
  public static final String DEFAULT = "kandev-recovery";

  private RecoveryTaskQueue() {}

  /**
   * {@code <queue>@<host>}: the activities that touch one executor host's processes or files (stopping
   * an agent, a runtime update's npm steps). Every worker on the host polls it.
   */
  public static String ofHost(String queue, String host) {
    return queue + "@" + host;
  }

  /**
   * {@code <queue>@<host>/launch}: agent launches on one host. Each worker takes from it only as many
   * launches as its cap allows, so the rest wait here, on the server, rather than overload the host.
   */
  public static String launchesOf(String queue, String host) {
    return ofHost(queue, host) + "/launch";
  }
}
