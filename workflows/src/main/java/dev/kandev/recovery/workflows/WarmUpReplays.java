package dev.kandev.recovery.workflows;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the resume's workflow code once in the worker's JVM before it polls, by replaying recorded
 * histories (a resume on a host, a resume whose launch failed and compensated) on the worker that
 * will run them. (Runtime updates are rare and never part of a restart's burst of resumes.)
 *
 * <p>Why: the first workflow task of a fresh JVM runs the workflow code cold — it loads and
 * initializes the classes of the workflow, of the SDK's state machines and promises, of Jackson's
 * (de)serializers for every payload, and links the lambdas and string concatenations on its path
 * (the thread dump of a {@code PotentialDeadlockException [TMPRL1101]} showed the workflow thread in
 * {@code java.lang.invoke} linkage inside {@code CompletablePromiseImpl.thenApply}). That is all CPU
 * on the workflow thread, and after a restart it competes with restart recovery's launches: past
 * the SDK's 1 s deadlock detection the workflow task fails and is retried, and the resume takes
 * seconds more. Replaying here does that work before the first real task. A replay only runs the
 * workflow code against the recorded events: no activity runs, no command reaches the server, the
 * replay-aware loggers and metrics stay silent.
 */
public final class WarmUpReplays {
  private static final Logger log = LoggerFactory.getLogger(WarmUpReplays.class);
  static final List<String> HISTORIES = List.of("resume-on-host", "resume-launch-failure-compensated");

  private WarmUpReplays() {}

  /**
   * Replays each bundled history on {@code worker} (its workflows registered, not yet polling); a
   * replay that fails (the deadlock detector on a starved machine, the cold run being the point) is
   * tried once more, then left: the warm-up never keeps a worker from starting.
   *
   * @return the histories that replayed
   */
  public static List<String> replayOn(Worker worker) {
    List<String> replayed = new ArrayList<>();
    for (String name : HISTORIES) {
      WorkflowExecutionHistory history = WorkflowExecutionHistory.fromJson(resource(name));
      for (int attempt = 1; attempt <= 2; attempt++) {
        long start = System.nanoTime();
        try {
          worker.replayWorkflowExecution(history);
          replayed.add(name);
          log.debug("warm-up replay of {} took {} ms", name, (System.nanoTime() - start) / 1_000_000);
          break;
        } catch (Exception e) {
          log.debug("warm-up replay of {} (attempt {}) failed: {}", name, attempt, e.toString());
        }
      }
    }
    return replayed;
  }

  private static String resource(String name) {
    String path = "warm-up/" + name + ".json";
    try (InputStream in = WarmUpReplays.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
