package dev.kandev.recovery.activities.process;

import java.util.concurrent.TimeUnit;

/** Ends a child and everything it started (npx runs the agent in a grandchild): its descendants first. */
public final class ProcessTrees {
  private ProcessTrees() {}

  /** Asks the process and its descendants to stop (SIGTERM); does not wait. */
  public static void terminate(Process process) {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
  }

  /** Kills the process and its descendants (SIGKILL); does not wait. */
  public static void destroyForcibly(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  /**
   * Asks a process this JVM did not start (another worker's agent) and its descendants to stop
   * (SIGTERM); does not wait.
   */
  public static void terminate(ProcessHandle process) {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
  }

  /** Kills a process this JVM did not start and its descendants (SIGKILL); does not wait. */
  public static void destroyForcibly(ProcessHandle process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  /** Kills the process and its descendants and waits up to 5 s for the process. */
  public static void kill(Process process) {
    destroyForcibly(process);
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
