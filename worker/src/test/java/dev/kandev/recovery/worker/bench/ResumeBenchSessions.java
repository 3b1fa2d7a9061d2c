package dev.kandev.recovery.worker.bench;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.workflows.model.SessionState;
import java.util.Collection;
import java.util.Set;

/**
 * What the resume benchmarks share: their sizes, the sessions they resume ({@code bench-0} …, a task
 * each in {@code ws-1}) and the untimed reset between two resumes of a session, which leaves it as
 * {@code ResumeHarness.establishedSession} does: agent gone, state FAILED, stored token kept.
 */
public final class ResumeBenchSessions {
  public static final int SESSIONS = 4;
  /**
   * Sequential rounds (every way once each); {@code -Dbench.rounds=3} makes a smoke run, and the
   * other counts follow it unless set themselves.
   */
  public static final int SEQUENTIAL = count("bench.rounds", 20);
  public static final int WARM_UP = count("bench.warmUp", Math.min(4, SEQUENTIAL));
  /** Threads of a parallel run, a session each (so at most {@link #SESSIONS}). */
  public static final int PARALLEL = Math.min(SESSIONS, count("bench.parallel", 4));
  public static final int PER_THREAD = count("bench.perThread", (SEQUENTIAL + 3) / 4);
  /** Sequential resumes of one way alone, for its CPU per resume. */
  public static final int CPU_RESUMES = count("bench.cpuResumes", SEQUENTIAL);
  /** The window in which nothing runs, for the background CPU. */
  public static final int IDLE_SECONDS = count("bench.idleSeconds", 10);

  /** A session's first launch (START_FRESH), so that its agent creates the provider session a RESUME loads. */
  @FunctionalInterface
  public interface FirstLaunch {
    void run(String sessionId) throws Exception;
  }

  private final TestDatabase db;

  public ResumeBenchSessions(TestDatabase db) {
    this.db = db;
  }

  public static String session(int index) {
    return "bench-" + index;
  }

  /** Creates the {@link #SESSIONS} sessions (CREATED), gives each its first launch, then resets it. */
  public void establish(FirstLaunch firstLaunch, Collection<Components> workers) throws Exception {
    for (int s = 0; s < SESSIONS; s++) {
      String id = session(s);
      db.fixtures().task("t-" + id, "ws-1", "REVIEW").session(id, "t-" + id, TestAgent.AGENT_ID, SessionState.CREATED, "{}");
      firstLaunch.run(id);
      reset(id, workers);
    }
  }

  /** Stops the session's agent on every worker and moves it WAITING_FOR_INPUT → FAILED. */
  public void reset(String sessionId, Collection<Components> workers) {
    workers.forEach(worker -> worker.agentHost().stop(sessionId));
    var moved = db.tx(h -> new MirrorSessionStore(Json.mapper()).transition(
        h, sessionId, Set.of(WAITING_FOR_INPUT), FAILED, "benchmark reset", "agent process exited", Fence.none()));
    if (!moved.won()) {
      throw new IllegalStateException("reset of " + sessionId + " lost: " + moved);
    }
  }

  private static int count(String property, int byDefault) {
    int value = Integer.getInteger(property, byDefault);
    if (value < 1) {
      throw new IllegalArgumentException(property + "=" + value + ": expected at least 1");
    }
    return value;
  }
}
