package dev.kandev.recovery.worker.chaos;

import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a campaign saw while it ran, for the checker: what each fault did, what each operation
 * started and saw end, the agents {@code /proc} showed at once for one session, the tokens the
 * store held, the metadata keys Kandev's stand-in wrote. Times are milliseconds since the start.
 */
public final class ChaosHistory {
  /** A fault as it was carried out (or skipped), or its end (a SIGCONT, a restart). */
  public record FaultEvent(long atMs, int fault, String what) {
    @Override
    public String toString() {
      return "t+%7.1fs  fault %3d  %s".formatted(atMs / 1000.0, fault, what);
    }
  }

  /** How a run ended, as Temporal reports it. */
  public record Outcome(String status, ResumeResult result, String failureType, ResumeFailure failure, String message) {
    public static Outcome running() {
      return new Outcome("RUNNING", null, null, null, null);
    }

    public boolean ended() {
      return !status.equals("RUNNING");
    }

    @Override
    public String toString() {
      return switch (status) {
        case "COMPLETED" -> result == null ? "COMPLETED" : result.outcome() + " (" + result.finalState() + ", token "
            + result.providerSessionId() + ", loaded " + result.loaded() + ")";
        case "FAILED" -> "FAILED " + failureType + (failure == null ? ": " + message : " at " + failure.step()
            + ", session " + failure.sessionState() + ", actions " + failure.recoveryActions());
        default -> status + (message == null ? "" : ": " + message);
      };
    }
  }

  /**
   * An operation as the campaign carried it out: the run it started (or attached to), how that run
   * ended, the credential snapshot just before the start and just after the end ({@code latestAfter}:
   * no other run of the session had started by then, so a failed run's restore can be compared).
   */
  public record OpRecord(ChaosSchedule.Op op, String prepared, String runId, String secondRunId, long startedMs,
      long endedMs, Outcome outcome, String snapshotBefore, String snapshotAfter, boolean latestAfter, String note) {
    @Override
    public String toString() {
      return "t+%7.1fs..%7.1fs  op %4d %-22s run %s%s -> %s%s".formatted(startedMs / 1000.0, endedMs / 1000.0,
          op.index(), op.kind(), runId, secondRunId == null ? "" : " (+" + secondRunId + ")", outcome,
          (prepared.isEmpty() ? "" : "; before: " + prepared) + (note.isEmpty() ? "" : "; " + note));
    }
  }

  /** Two or more live agent processes of one session at one sample. */
  public record Overlap(long atMs, String session, Set<Long> pids) {}

  public final List<FaultEvent> faults = Collections.synchronizedList(new ArrayList<>());
  public final List<OpRecord> ops = Collections.synchronizedList(new ArrayList<>());
  public final List<Overlap> overlaps = Collections.synchronizedList(new ArrayList<>());
  /** Every resume token the store showed for a session (executor row and metadata), "" for none. */
  public final Map<String, Set<String>> tokensSeen = new ConcurrentHashMap<>();
  /** The metadata keys Kandev's stand-in wrote (and saw committed), per session. */
  public final Map<String, Set<String>> kandevKeys = new ConcurrentHashMap<>();
  /** The initial token of each session. */
  public final Map<String, String> initialTokens = new ConcurrentHashMap<>();
  /** The samples taken of the agents and of the tokens. */
  public volatile int samples;
}
