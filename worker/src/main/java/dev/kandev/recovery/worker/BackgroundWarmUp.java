package dev.kandev.recovery.worker;

import dev.kandev.recovery.workflows.HostWaitBounds;
import dev.kandev.recovery.workflows.WarmUpReplays;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflowImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link WarmUpReplays} in the background while the process does the rest of its start (the
 * store, the predecessor's sessions), on a worker of its own that never polls: what it warms (class
 * initialization, linked call sites, the data converter's deserializers) is the JVM's, not one
 * worker's. The worker that polls {@link #await}s it first, so no workflow task runs the workflow
 * code cold or waits on a class the warm-up is initializing.
 */
public final class BackgroundWarmUp {
  private static final Logger log = LoggerFactory.getLogger(BackgroundWarmUp.class);
  private static final String QUEUE = "kandev-recovery-warm-up";

  private final CompletableFuture<List<String>> replayed;

  private BackgroundWarmUp(CompletableFuture<List<String>> replayed) {
    this.replayed = replayed;
  }

  /**
   * Starts it with {@code client}'s data converter and {@code options}, the factory options (the
   * interceptors) of the real workers.
   */
  public static BackgroundWarmUp start(WorkflowClient client, WorkerFactoryOptions options) {
    long start = System.nanoTime();
    CompletableFuture<List<String>> replayed = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      WorkerFactory factory = WorkerFactory.newInstance(client, options);
      try {
        Worker worker = factory.newWorker(QUEUE);
        worker.registerWorkflowImplementationFactory(ResumeSessionWorkflow.class, () -> new ResumeSessionWorkflowImpl(HostWaitBounds.DEFAULT));
        List<String> names = WarmUpReplays.replayOn(worker);
        log.debug("workflow code warmed up in {} ms by replaying {}", (System.nanoTime() - start) / 1_000_000, names);
        replayed.complete(names);
      } catch (RuntimeException e) {
        log.debug("workflow code warm-up failed: {}", e.toString());
        replayed.complete(List.of());
      } finally {
        factory.shutdownNow();
      }
    }, "workflow-warm-up");
    thread.setDaemon(true);
    thread.start();
    return new BackgroundWarmUp(replayed);
  }

  /** Waits until it is done; it never fails. */
  List<String> await() {
    return replayed.join();
  }
}
