package dev.kandev.recovery.worker.recovery;

import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a worker instance is gone (it crashed, or its process was killed), so are the agents it ran.
 * Sessions that were active on agents of a gone instance on this host, with a stored provider
 * session, are resumed automatically — each through the normal {@code ResumeSessionWorkflow}, so a
 * repeated run attaches instead of doubling. An instance is gone once it stopped beating in {@code
 * worker_presence}; another live worker on the same host keeps its sessions. Sessions in the
 * error-recovery state (WAITING_FOR_INPUT with an error) wait for the user. The rows of the other
 * agents a gone instance ran stop claiming a live process.
 */
public final class RestartRecovery {
  static final int STARTS_AT_ONCE = 8;
  private static final Logger log = LoggerFactory.getLogger(RestartRecovery.class);

  private final Transactions transactions;
  private final ExecutorsRunningStore executors;
  private final ResumeClient resumes;
  private final String host;
  private final String instance;
  /** False where Kandev's executor launches the host's agents: Kandev's boot recovery resumes what it lost. */
  private final boolean enabled;

  public RestartRecovery(
      Transactions transactions, ExecutorsRunningStore executors, ResumeClient resumes, String host, String instance) {
    this(transactions, executors, resumes, host, instance, true);
  }

  private RestartRecovery(Transactions transactions, ExecutorsRunningStore executors, ResumeClient resumes, String host,
      String instance, boolean enabled) {
    this.transactions = transactions;
    this.executors = executors;
    this.resumes = resumes;
    this.host = host;
    this.instance = instance;
    this.enabled = enabled;
  }

  /**
   * The restart recovery of a worker whose host's agents Kandev's executor launches
   * ({@code KANDEV_LAUNCH_ADAPTER=kandev-executor}): it resumes nothing and marks nothing lost. Those
   * agents are Kandev's (they may outlive Kandev's launch worker, under agentctl), and Kandev's boot
   * recovery, which knows which of them survived, resumes the others through {@code ResumeSessionWorkflow}.
   */
  public static RestartRecovery leftToKandev(String host, String instance) {
    return new RestartRecovery(null, null, null, host, instance, false);
  }

  /**
   * Starts (or attaches to) a resume for every lost session; returns their ids. The starts are
   * server round trips, made {@value #STARTS_AT_ONCE} at a time, so a host that lost hundreds of
   * agents is ready in seconds; the launches themselves queue behind the host's launch cap, filled
   * far faster than it empties. The worker process gives a client that starts eagerly ({@link
   * ResumeClient#startingEagerly}): each first workflow task comes back in its start's answer.
   */
  public List<String> resumeLostSessions() {
    if (!enabled) {
      return List.of();
    }
    List<String> sessionIds = transactions.inTransaction("list the sessions lost on " + host,
        h -> executors.sessionsLostOn(h, host, instance));
    if (!sessionIds.isEmpty()) {
      ExecutorService starts = Executors.newFixedThreadPool(Math.min(STARTS_AT_ONCE, sessionIds.size()));
      try {
        starts.invokeAll(sessionIds.stream().map(id -> (Callable<Void>) () -> {
          start(id);
          return null;
        }).toList());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the worker is stopping: the next worker of the host looks again
      } finally {
        starts.shutdownNow();
      }
    }
    List<String> lost = transactions.inTransaction("mark the agents lost with gone workers on " + host,
        h -> executors.markLostWithGoneWorkers(h, host, instance));
    if (!lost.isEmpty()) {
      log.info("restart recovery: the agents of sessions {} went with their gone worker; recorded as failed", lost);
    }
    return sessionIds;
  }

  private void start(String sessionId) {
    try {
      resumes.start(ResumeRequest.restartRecovery(sessionId, "worker:" + instance));
      log.info("restart recovery: resuming session {}", sessionId);
    } catch (RuntimeException e) {
      log.warn("restart recovery: could not start the resume of session {}: {}", sessionId, e.getMessage());
    }
  }
}
