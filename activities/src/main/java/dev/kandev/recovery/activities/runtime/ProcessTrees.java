package dev.kandev.recovery.activities.runtime;

import java.util.concurrent.TimeUnit;

/** Kills a child and everything it started (npx runs the agent in a grandchild). */
final class ProcessTrees {
  private ProcessTrees() {}

  static void kill(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
