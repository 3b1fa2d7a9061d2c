package dev.kandev.recovery.worker.it;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.worker.interceptors.StepFreezeInterceptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code dev} — the packaged jar on the real dev server — killed with SIGKILL at every step of a
 * resume, each on a session of its own: right before the step and right after it committed (its
 * result not yet reported), the compensations of a failed launch included. The step is frozen first
 * (a test hook in the worker), then the process is killed and {@code dev} started again on the same
 * state folder. Every run must end RESUMED with a live agent that loaded the stored token, or
 * restored with its token, its snapshot byte for byte and its recovery actions: never STARTING,
 * never a lock left, never a RESUMED whose agent is dead, no live lease without a live agent.
 */
class ResumeKilledAtEveryStepIT {
  /** The steps of a resume that launches, in their order ({@code ClearIdentityForFreshStart}: a Start fresh). */
  private static final List<String> STEPS = List.of("AcquireResumeLock", "ReadResumeContext",
      "ClearIdentityForFreshStart", "MarkStarting", "IssueCredentialLeaseForAttempt", "PersistCredentialSnapshot",
      "LaunchAgent", "SettleSession", "ReleaseResumeLock");
  /** The compensations of a resume whose launch failed (and its lock release), in the order they run. */
  private static final List<String> COMPENSATIONS = List.of("StopAgent", "RestoreCredentialSnapshot",
      "RevokeCredentialLeases", "RestorePriorState", "ReleaseResumeLock");
  /** Written by another Kandev version: a key this one does not know, a number a typed round trip rewrites. */
  private static final String SNAPSHOT = "{\"version\":1,\"policy\":\"none\",\"permissions\":{},\"source\":\"executor\","
      + "\"capturedAt\":\"2026-11-30T10:00:00Z\",\"routedBy\":\"kandev-2.4\",\"weight\":1.50}";

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  /** One session frozen at one point; {@code launchFails}: its workspace is gone, so its launch fails. */
  private record Case(String session, String step, String phase, boolean launchFails, ResumeMode mode) {
    String point() {
      return session + " " + step + " " + phase;
    }
  }

  @Test
  void aResumeKilledAtAnyStepEndsResumedWithALiveAgentOrRestoredWithItsTokenAndSnapshot() throws Exception {
    List<Case> cases = new ArrayList<>();
    for (String phase : List.of("before", "after")) {
      for (String step : STEPS) {
        ResumeMode mode = step.equals("ClearIdentityForFreshStart") ? ResumeMode.START_FRESH : ResumeMode.RESUME;
        cases.add(new Case("k" + cases.size(), step, phase, false, mode));
      }
      for (String step : COMPENSATIONS) {
        cases.add(new Case("k" + cases.size(), step, phase, true, ResumeMode.RESUME));
      }
    }
    Path freezeFile = cluster.dir().resolve("freeze-steps");
    cluster.setting("KANDEV_MAX_CONCURRENT_LAUNCHES", "40");
    cluster.setting("KANDEV_MAX_RUNNING_AGENTS", "80");
    cluster.dev("dev-a", Map.of("JAVA_TOOL_OPTIONS", "-D" + StepFreezeInterceptor.PROPERTY + "=" + freezeFile));

    Map<Case, String> snapshots = new LinkedHashMap<>();
    for (Case c : cases) {
      snapshots.put(c, failedGitHubSessionWithToken(c));
    }
    Files.write(freezeFile, cases.stream().map(Case::point).toList());
    Map<Case, ResumeHandle> resumes = new LinkedHashMap<>();
    for (Case c : cases) {
      resumes.put(c, cluster.start(c.session(), c.mode()));
    }
    KandevProcess devA = cluster.process("dev-a");
    try {
      Await.until(() -> frozen(devA.output()).size() == cases.size(), Duration.ofMinutes(3),
          "every resume to freeze at its point");
    } catch (AssertionError e) {
      List<String> missing = cases.stream().map(c -> "FROZEN " + c.point()).filter(p -> !frozen(devA.output()).contains(p)).toList();
      Files.writeString(Path.of("target", "frozen-dev-a.log"), devA.output());
      throw new AssertionError(e.getMessage() + "; not frozen: " + missing, e);
    }

    cluster.kill("dev-a");
    cluster.dev("dev-b");

    SoftAssertions softly = new SoftAssertions();
    for (Case c : cases) {
      Outcome outcome = await(resumes.get(c));
      String as = c.point() + " (" + outcome + ")";
      String token = token(c);
      softly.assertThat(cluster.state(c.session())).as(as).isNotEqualTo(STARTING);
      softly.assertThat(cluster.lockHeld(c.session())).as(as + ": lock").isFalse();
      softly.assertThat(liveAgents(c.session())).as(as + ": live agent processes").isLessThanOrEqualTo(1);
      if (outcome.result() != null) {
        ResumeResult result = outcome.result();
        softly.assertThat(c.launchFails()).as(as + ": a launch that cannot start succeeded").isFalse();
        softly.assertThat(result.finalState()).as(as).isEqualTo(WAITING_FOR_INPUT);
        softly.assertThat(cluster.state(c.session())).as(as).isEqualTo(WAITING_FOR_INPUT);
        Optional<ExecutorRecord> agent = cluster.executor(c.session());
        softly.assertThat(agent.filter(TestStores::claimsLiveProcess).map(ExecutorRecord::pid)
                .flatMap(ProcessHandle::of).map(ProcessHandle::isAlive).orElse(false))
            .as(as + ": a settled resume's agent runs (" + agent + ")").isTrue();
        if (c.mode() == ResumeMode.RESUME) {
          softly.assertThat(result.outcome()).as(as).isEqualTo(ResumeOutcome.RESUMED);
          softly.assertThat(result.providerSessionId()).as(as + ": session/load of the stored token").isEqualTo(token);
        }
      } else {
        ResumeFailure failure = outcome.failure();
        softly.assertThat(cluster.executor(c.session()).filter(TestStores::claimsLiveProcess))
            .as(as + ": no agent claims the session").isEmpty();
        softly.assertThat(liveLeases(c.session())).as(as + ": live leases").isZero();
        if (failure.sessionState() != null && c.mode() == ResumeMode.RESUME) {
          softly.assertThat(cluster.state(c.session())).as(as).isEqualTo(FAILED);
          softly.assertThat(failure.sessionState()).as(as).isEqualTo(FAILED);
          softly.assertThat(failure.recoveryActions()).as(as).contains(ResumeMode.RESUME);
          softly.assertThat(cluster.identity(c.session())).as(as).isEqualTo(new SessionIdentity(token, token));
          softly.assertThat(snapshot(c.session())).as(as + ": the snapshot of before").isEqualTo(snapshots.get(c));
        }
      }
      if (c.launchFails()) {
        softly.assertThat(outcome.failure()).as(as).isNotNull();
        if (outcome.failure() != null) {
          softly.assertThat(outcome.failure().failureType()).as(as).isEqualTo("AGENT_PROCESS_START_FAILED");
        }
      }
    }
    softly.assertAll();
  }

  /** What a run ended with: its result, or its failure. */
  private record Outcome(ResumeResult result, ResumeFailure failure) {
    @Override
    public String toString() {
      return result != null ? result.outcome().name() : "FAILED at " + failure.step() + " (" + failure.failureType() + ")";
    }
  }

  private static Outcome await(ResumeHandle resume) throws TimeoutException {
    try {
      return new Outcome(resume.await(Duration.ofMinutes(3)), null);
    } catch (ResumeFailedException e) {
      return new Outcome(null, e.failure());
    }
  }

  /**
   * A FAILED session of the test agent whose provider session exists, backed by GitHub (so a resume
   * takes a real lease and persists a new snapshot), with a snapshot another version wrote. Returns
   * the stored snapshot as PostgreSQL prints it.
   */
  private String failedGitHubSessionWithToken(Case c) throws IOException {
    String token = token(c);
    cluster.fixtures.sessionWithToken(c.session(), SessionState.FAILED, token);
    if (cluster.fixtures.count("SELECT count(*) FROM repositories") == 0) {
      cluster.gitHubBacked(c.session(), "github_app");
    } else {
      cluster.credentials.link(RecoveryCluster.taskOf(c.session()), "repo-widgets", 0);
    }
    cluster.fixtures.exec("UPDATE task_sessions SET workspace_path = ?,"
            + " metadata = jsonb_set(metadata, '{git_credential_snapshot}', ?::jsonb) WHERE id = ?",
        c.launchFails() ? cluster.dir().resolve("no-such-workspace").toString() : cluster.dir().toString(), SNAPSHOT,
        c.session());
    Path agentState = cluster.dir().resolve("agent-state");
    Files.createDirectories(agentState);
    Files.writeString(agentState.resolve(token + ".json"),
        "{\"id\": \"" + token + "\", \"cwd\": \"" + cluster.dir() + "\", \"messages\": []}");
    return snapshot(c.session());
  }

  private static String token(Case c) {
    return "sess_" + c.session();
  }

  private String snapshot(String session) {
    return cluster.fixtures.string("SELECT metadata -> 'git_credential_snapshot' FROM task_sessions WHERE id = ?", session);
  }

  private long liveLeases(String session) {
    return cluster.fixtures.count(
        "SELECT count(*) FROM credential_leases WHERE session_id = ? AND revoked_at IS NULL AND expires_at > now()", session);
  }

  /** The session's agent processes that still run, from the test agent's launch log. */
  private long liveAgents(String session) {
    return cluster.agentEvents().stream()
        .filter(e -> e.event().equals("session") && session.equals(sessionOfToken(e.sessionId())))
        .map(RecoveryCluster.AgentEvent::pid).distinct()
        .filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
        .count();
  }

  private static String sessionOfToken(String token) {
    return token != null && token.startsWith("sess_k") ? token.substring("sess_".length()) : null;
  }

  private static List<String> frozen(String output) {
    return output.lines().filter(line -> line.startsWith("FROZEN ")).toList();
  }
}
