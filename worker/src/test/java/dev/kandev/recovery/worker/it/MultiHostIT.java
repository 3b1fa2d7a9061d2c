package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.ActivityRun;
import dev.kandev.recovery.worker.harness.RecordedHistories;
import dev.kandev.recovery.worker.harness.RecoveryCluster.AgentEvent;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Several executor hosts: three {@code worker} processes with their own {@code KANDEV_HOST} against
 * one {@code dev} server and one PostgreSQL. Every agent starts on the host its session belongs to,
 * its stop goes there too, a host whose worker is down fails only its own resumes (within the host
 * wait, nothing launched elsewhere), and its next worker resumes what it lost.
 */
public class MultiHostIT {
  private static final List<String> HOSTS = List.of("h1", "h2", "h3");
  private static final Map<String, String> NONE = Map.of();
  private static final Duration RESUME = Duration.ofMinutes(2);

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  @Test
  void eachAgentRunsOnItsSessionsHostAndADeadHostFailsOnlyItsOwnResumes() throws Exception {
    // The workflow's worker decides the host wait: every process gets the same (30 launches at once
    // on 2 shared cores must not look like a dead host).
    cluster.setting("KANDEV_HOST_WAIT_SECONDS", "20");
    cluster.dev("dev"); // its own worker is host it-host, which no session belongs to
    for (String host : HOSTS) {
      cluster.worker(worker(host), host, NONE);
    }

    // 30 sessions spread over the hosts, bound by the starter; all started at once.
    Map<String, String> hostOf = new LinkedHashMap<>();
    for (int i = 0; i < 30; i++) {
      String sessionId = "s" + i;
      cluster.newSession(sessionId, SessionState.CREATED);
      cluster.bindHost(sessionId, HOSTS.get(i % HOSTS.size()));
      hostOf.put(sessionId, HOSTS.get(i % HOSTS.size()));
    }
    Map<String, ResumeHandle> resumes = new LinkedHashMap<>();
    hostOf.keySet().forEach(sessionId -> resumes.put(sessionId, cluster.start(sessionId, ResumeMode.START_FRESH)));
    Map<String, String> tokenOf = new LinkedHashMap<>();
    for (var resume : resumes.entrySet()) {
      tokenOf.put(resume.getKey(), resume.getValue().await(RESUME).providerSessionId());
    }
    RecordedHistories.recordIfAsked(cluster.client().fetchHistory(resumes.get("s0").workflowId(), resumes.get("s0").runId()),
        "fewer-events-resume-on-host");
    for (String sessionId : hostOf.keySet()) {
      String host = hostOf.get(sessionId);
      assertThat(createdOn(tokenOf.get(sessionId))).as("host of the agent of %s", sessionId).isEqualTo(host);
      ExecutorRecord executor = cluster.executor(sessionId).orElseThrow();
      assertThat(executor.host()).isEqualTo(host);
      assertThat(executor.workerInstance()).isEqualTo(worker(host));
      ActivityRun launch = launchOf(resumes.get(sessionId));
      assertThat(launch.taskQueue()).isEqualTo(RecoveryTaskQueue.launchesOf("kandev-recovery", host));
      assertThat(launch.worker()).isEqualTo(worker(host));
    }

    // A compensation stops the agent on its host: resumes cancelled while their agents are in ACP initialize.
    cluster.agentMode("hold-initialize");
    Map<String, ResumeHandle> cancelled = new LinkedHashMap<>();
    Map<String, Long> pidOf = new LinkedHashMap<>();
    for (String host : HOSTS) {
      String sessionId = "c-" + host;
      cluster.newSession(sessionId, SessionState.CREATED);
      cluster.bindHost(sessionId, host);
      cancelled.put(sessionId, cluster.start(sessionId, ResumeMode.START_FRESH));
    }
    for (var resume : cancelled.entrySet()) {
      ExecutorRecord starting = cluster.awaitAgentStarting(resume.getKey());
      assertThat(starting.host()).isEqualTo(hostOfCompensated(resume.getKey()));
      pidOf.put(resume.getKey(), starting.pid());
      resume.getValue().cancel();
    }
    for (var resume : cancelled.entrySet()) {
      String host = hostOfCompensated(resume.getKey());
      Await.until(() -> !resume.getValue().isRunning(), RESUME, "the cancelled resume of " + resume.getKey() + " to end");
      ActivityRun stop = cluster.activities(resume.getValue().workflowId(), resume.getValue().runId()).stream()
          .filter(run -> run.type().equals("StopAgent")).findFirst().orElseThrow();
      assertThat(stop.taskQueue()).isEqualTo(RecoveryTaskQueue.ofHost("kandev-recovery", host));
      assertThat(stop.worker()).isEqualTo(worker(host));
      long pid = pidOf.get(resume.getKey());
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("agent pid %d alive", pid).isFalse();
      assertThat(cluster.agentEvents()).filteredOn(e -> e.pid() == pid)
          .extracting(AgentEvent::event, AgentEvent::host).contains(tuple("start", host));
      assertThat(cluster.state(resume.getKey())).isEqualTo(SessionState.CREATED);
    }
    cluster.agentMode("normal");

    // Two of h2's sessions end FAILED (their agents stopped), then h2's worker is killed.
    List<String> failedOnH2 = List.of("s1", "s4");
    for (String sessionId : failedOnH2) {
      assertThat(cluster.tx(h -> cluster.sessions().transition(h, sessionId, Set.of(SessionState.WAITING_FOR_INPUT),
          SessionState.FAILED, "test", "agent process exited", Fence.none())).won()).isTrue();
      Await.until(() -> !TestStores.claimsLiveProcess(cluster.executor(sessionId).orElseThrow()), RESUME,
          "h2's reaper to stop the agent of failed session " + sessionId);
    }
    Map<String, Long> pidsElsewhere = new LinkedHashMap<>();
    hostOf.forEach((sessionId, host) -> {
      if (!host.equals("h2")) {
        pidsElsewhere.put(sessionId, cluster.executor(sessionId).orElseThrow().pid());
      }
    });
    int eventsBeforeKill = cluster.agentEvents().size();
    cluster.kill(worker("h2"));

    for (String sessionId : failedOnH2) {
      ResumeHandle resume = cluster.start(sessionId, ResumeMode.RESUME);
      ResumeFailure failure = RecoveryCluster.awaitFailure(resume, RESUME);
      RecordedHistories.recordIfAsked(cluster.client().fetchHistory(resume.workflowId(), resume.runId()),
          "fewer-events-resume-host-unavailable");
      assertThat(failure.failureType()).isEqualTo(FailureType.AGENT_HOST_UNAVAILABLE.type());
      assertThat(failure.step()).isEqualTo(ResumeStep.LAUNCH_AGENT);
      assertThat(failure.message()).contains("no worker of host h2 took the launch within 20 s");
      assertThat(failure.sessionState()).isEqualTo(SessionState.FAILED);
      assertThat(failure.recoveryActions()).containsExactly(ResumeMode.RESUME, ResumeMode.START_FRESH);
      assertThat(cluster.state(sessionId)).isEqualTo(SessionState.FAILED);
      assertThat(cluster.identity(sessionId).resumeToken()).isEqualTo(tokenOf.get(sessionId));
      assertThat(cluster.lockHeld(sessionId)).isFalse();
    }
    List<AgentEvent> sinceKill = cluster.agentEvents().subList(eventsBeforeKill, cluster.agentEvents().size());
    assertThat(sinceKill).as("nothing launched anywhere for h2's sessions")
        .noneMatch(e -> e.event().equals("start") || e.event().equals("session"));
    pidsElsewhere.forEach((sessionId, pid) -> {
      assertThat(cluster.state(sessionId)).as(sessionId).isEqualTo(SessionState.WAITING_FOR_INPUT);
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("agent of %s", sessionId).isTrue();
    });

    // h2's next worker resumes the sessions its predecessor lost; the FAILED ones wait for their user.
    cluster.worker("w-h2-next", "h2", NONE);
    for (String sessionId : hostOf.keySet()) {
      if (!hostOf.get(sessionId).equals("h2") || failedOnH2.contains(sessionId)) {
        continue;
      }
      Await.until(() -> cluster.executor(sessionId).map(e -> e.workerInstance().equals("w-h2-next")
              && e.status().equals("running")).orElse(false) && cluster.state(sessionId) == SessionState.WAITING_FOR_INPUT,
          RESUME, "restart recovery of " + sessionId + " on h2");
      assertThat(cluster.identity(sessionId).resumeToken()).isEqualTo(tokenOf.get(sessionId));
      assertThat(cluster.agentEvents()).filteredOn(e -> e.event().equals("session") && tokenOf.get(sessionId).equals(e.sessionId()))
          .extracting(AgentEvent::host, AgentEvent::loaded)
          .containsExactly(tuple("h2", false), tuple("h2", true));
    }
    failedOnH2.forEach(sessionId -> assertThat(cluster.state(sessionId)).isEqualTo(SessionState.FAILED));
  }

  private ActivityRun launchOf(ResumeHandle resume) {
    return cluster.activities(resume.workflowId(), resume.runId()).stream()
        .filter(run -> run.type().equals("LaunchAgent")).findFirst().orElseThrow();
  }

  /** The host of the agent that created provider session {@code token}. */
  private String createdOn(String token) {
    return cluster.agentEvents().stream()
        .filter(e -> e.event().equals("session") && token.equals(e.sessionId()) && !e.loaded())
        .map(AgentEvent::host).findFirst().orElseThrow(() -> new AssertionError("no agent created " + token));
  }

  private static String hostOfCompensated(String sessionId) {
    return sessionId.substring("c-".length());
  }

  private static String worker(String host) {
    return "w-" + host;
  }
}
