package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.resume.ResumeProgress;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import io.temporal.api.common.v1.WorkflowExecution;
import java.io.PrintStream;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Prints a resume's progress lines as they appear, from a thread of its own: the progress query
 * waits as long as no worker takes it, and nothing here may hold up the outcome or the deadline.
 * While no worker polls the task queue (or the launch queue the resume waits on) it says so once,
 * with what to start and how to end the resume, and does not ask the query.
 */
final class ResumeProgressPrinter implements AutoCloseable {
  private static final long EVERY_MILLIS = 500;
  /** How often the task queues are looked at. */
  private static final long QUEUES_EVERY_MILLIS = 5_000;
  /** How often while the resume is at its launch and no lack of a launch worker was said: the launch is scheduled any moment. */
  private static final long QUEUES_AT_LAUNCH_EVERY_MILLIS = 1_000;
  /** How long the last look at the lines may take once the outcome is known. */
  private static final long LAST_LOOK_MILLIS = 10_000;

  private final ResumeHandle handle;
  private final PrintStream out;
  private final TaskQueues queues;
  private final String taskQueue;
  private final String sessionId;
  private final Thread thread;
  private final Object printing = new Object();
  private final CountDownLatch wake = new CountDownLatch(1);
  private volatile boolean stopping;
  private boolean closed;
  private int printed;
  private boolean atLaunch;
  private boolean workerPolls = true;
  private String saidLaunchQueue;

  ResumeProgressPrinter(ResumeHandle handle, PrintStream out, TaskQueues queues, String taskQueue, String sessionId) {
    this.handle = handle;
    this.out = out;
    this.queues = queues;
    this.taskQueue = taskQueue;
    this.sessionId = sessionId;
    this.thread = new Thread(this::printUntilClosed, "resume-progress");
    thread.setDaemon(true);
    thread.start();
  }

  /** Whether the last look found no worker polling the task queue. */
  boolean noWorkerPolls() {
    synchronized (printing) {
      return !workerPolls;
    }
  }

  private void printUntilClosed() {
    long lastQueueLook = Long.MIN_VALUE / 2;
    while (true) {
      boolean last = stopping;
      long every = atLaunchUnsaid() ? QUEUES_AT_LAUNCH_EVERY_MILLIS : QUEUES_EVERY_MILLIS;
      if (!last && System.currentTimeMillis() >= lastQueueLook + every) {
        lookAtQueues();
        lastQueueLook = System.currentTimeMillis();
      }
      if (!noWorkerPolls()) {
        printNewLines();
      }
      if (last) {
        return;
      }
      try {
        wake.await(EVERY_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void lookAtQueues() {
    boolean polls = queues.polled(taskQueue, false).orElse(true);
    synchronized (printing) {
      if (!polls && workerPolls) {
        print("waiting: no worker polls task queue " + taskQueue + ", so nothing runs this resume until one does:"
            + " start one (kandev-recovery worker, with KANDEV_TASK_QUEUE=" + taskQueue + "), or end the resume with"
            + " kandev-recovery resume --cancel " + sessionId);
      }
      workerPolls = polls;
    }
    if (!polls) {
      return;
    }
    WorkflowExecution run = WorkflowExecution.newBuilder().setWorkflowId(handle.workflowId()).setRunId(handle.runId()).build();
    Optional<String> launchQueue = queues.waitingLaunchQueue(run)
        .filter(queue -> !queues.polled(queue, true).orElse(true));
    synchronized (printing) {
      if (launchQueue.isPresent() && !launchQueue.get().equals(saidLaunchQueue)) {
        print("waiting: no worker polls the session's launch queue " + launchQueue.get() + ": the launch waits at most"
            + " the host wait (KANDEV_HOST_WAIT_SECONDS, default 60 s), then the resume fails with AGENT_HOST_UNAVAILABLE;"
            + " start a worker on that host (KANDEV_HOST=" + host(launchQueue.get()) + ")");
        saidLaunchQueue = launchQueue.get();
      }
    }
  }

  private void printNewLines() {
    ResumeProgress progress;
    try {
      progress = handle.progress();
    } catch (RuntimeException e) {
      return; // the query is unavailable until the first workflow task ran
    }
    synchronized (printing) {
      for (int i = printed; i < progress.lines().size(); i++) {
        String line = progress.lines().get(i);
        print("  " + line);
        atLaunch = line.startsWith(ResumeStep.LAUNCH_AGENT + ":");
      }
      printed = Math.max(printed, progress.lines().size());
    }
  }

  private boolean atLaunchUnsaid() {
    synchronized (printing) {
      return atLaunch && saidLaunchQueue == null;
    }
  }

  /** How many progress lines were printed. */
  int printed() {
    synchronized (printing) {
      return printed;
    }
  }

  private void print(String line) {
    if (!closed) {
      out.println(line);
    }
  }

  private static String host(String launchQueue) {
    String hostQueue = launchQueue.substring(0, launchQueue.length() - "/launch".length());
    return hostQueue.substring(hostQueue.indexOf('@') + 1);
  }

  /** Prints what is left, bounded; nothing is printed after this returns. */
  @Override
  public void close() throws InterruptedException {
    stopping = true;
    wake.countDown();
    thread.join(LAST_LOOK_MILLIS);
    synchronized (printing) {
      closed = true;
    }
  }
}
