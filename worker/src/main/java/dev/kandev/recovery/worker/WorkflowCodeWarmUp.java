package dev.kandev.recovery.worker;

import dev.kandev.recovery.workflows.HostWait;
import dev.kandev.recovery.workflows.WorkflowWarmUp;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflowImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link WorkflowWarmUp} in the background while the process does the rest of its start (the
 * store, the predecessor's sessions), on a worker of its own that never polls: what it warms (class
 * initialization, linked call sites, the data converter's deserializers) is the JVM's, not one
 * worker's. The worker that polls {@link #await}s it first, so no workflow task runs the workflow
 * code cold or waits on a class the warm-up is initializing.
 */
public final class WorkflowCodeWarmUp {
  private static final Logger log = LoggerFactory.getLogger(WorkflowCodeWarmUp.class);
  private static final String QUEUE = "kandev-recovery-warm-up";

  private final CompletableFuture<List<String>> replayed;

  private WorkflowCodeWarmUp(CompletableFuture<List<String>> replayed) {
    this.replayed = replayed;
  }

  /** Starts it with {@code client}'s data converter and the interceptors of the real workers. */
  public static WorkflowCodeWarmUp start(WorkflowClient client) {
    long start = System.nanoTime();
    CompletableFuture<List<String>> replayed = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      WorkerFactory factory = WorkerFactory.newInstance(client, TemporalWorkers.factoryOptions());
      try {
        Worker worker = factory.newWorker(QUEUE);
        worker.registerWorkflowImplementationFactory(ResumeSessionWorkflow.class, () -> new ResumeSessionWorkflowImpl(HostWait.DEFAULT));
        List<String> names = WorkflowWarmUp.run(worker);
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
    return new WorkflowCodeWarmUp(replayed);
  }

  /** Waits until it is done; it never fails. */
  List<String> await() {
    return replayed.join();
  }
}
