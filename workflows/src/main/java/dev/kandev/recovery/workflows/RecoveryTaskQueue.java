package dev.kandev.recovery.workflows;

/** The contract constants every starter shares (see docs/contract.md). */
public final class RecoveryTaskQueue {
  /** The default task queue of the worker; configurable with KANDEV_TASK_QUEUE. */
  public static final String DEFAULT = "kandev-recovery";

  private RecoveryTaskQueue() {}
}
