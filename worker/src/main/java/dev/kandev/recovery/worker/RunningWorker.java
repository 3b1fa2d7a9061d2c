package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.workflows.client.ResumeClient;
import io.temporal.client.WorkflowClient;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** Starts the worker, resumes the sessions its predecessor lost, and runs until the JVM stops. */
final class RunningWorker {
  private RunningWorker() {}

  static void runUntilStopped(Settings settings, Database database, WorkflowClient client) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("Stopping...");
      stopped.countDown();
    }));
    try (Components components = new Components(settings, database);
        RecoveryWorker worker = RecoveryWorker.start(client, settings.taskQueue(), components)) {
      System.out.printf("Credentials  %s (git credential redemption, loopback)%n", components.redemption.url());
      System.out.printf("Agents       %s%n", components.agentProfiles.ids());
      List<String> resumed = new RestartRecovery(database.dataSource(), new ResumeClient(client, settings.taskQueue()),
          settings.host(), settings.workerInstance()).resumeLostSessions();
      System.out.printf("Recovery     %d session(s) whose agent was lost on %s: %s%n", resumed.size(), settings.host(), resumed);
      System.out.println("Ready. Press Ctrl-C to stop.");
      stopped.await();
    }
  }
}
