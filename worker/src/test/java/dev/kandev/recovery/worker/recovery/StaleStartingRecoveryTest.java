package dev.kandev.recovery.worker.recovery;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.LeaseStore;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sessions an ended resume left STARTING are restored; those a running resume owns are not. On both
 * store layouts: our mirror and Kandev's own tables.
 */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
public class StaleStartingRecoveryTest {
  @RegisterExtension @Order(1) final TestDatabase db;
  @RegisterExtension @Order(2) final ResumeHarness harness;
  private StaleStartingRecovery recovery;
  private ExecutorsRunningStore executors;

  public StaleStartingRecoveryTest(StoreLayout.Kind layout) {
    this.db = new TestDatabase(layout);
    this.harness = new ResumeHarness(db);
  }

  @BeforeEach
  void setUp() {
    executors = KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE).executors();
    recovery = new StaleStartingRecovery(db.transactions(), harness.sessions(), harness.locks(), harness.resumes(),
        sessionId -> db.run(h -> new LeaseStore(Json.mapper()).revokeSession(h, sessionId, Instant.now())));
  }

  @Test
  void aSessionLeftStartingByATerminatedResumeIsRestoredAndUnlocked() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.gitHubBacked("s1", "github_app");
    ResumeHandle resume = resumeHeldInLaunch("s1");
    harness.client().newUntypedWorkflowStub(resume.workflowId()).terminate("an operator terminated the resume");
    assertThat(harness.state("s1")).isEqualTo(STARTING);
    assertThat(harness.lockHeld("s1")).as("the terminated run never released its lock").isTrue();

    assertThat(recovery.restoreStaleSessions()).containsExactly("s1");

    assertThat(harness.state("s1")).isEqualTo(FAILED);
    assertThat(harness.transitions("s1")).last().isEqualTo("STARTING>FAILED");
    assertThat(harness.lockHeld("s1")).isFalse();
    assertThat(harness.liveLeases("s1")).as("the ended run's lease revoked").isZero();
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(recovery.restoreStaleSessions()).as("once").isEmpty();

    // The terminated run's launch now finishes its handshake for nobody: the worker's reaper stops
    // that agent (the session is FAILED), and the next Resume loads the same conversation.
    harness.agentMode("normal");
    Await.until(() -> db.tx(h -> executors.find(h, "s1")).map(e -> !TestStores.claimsLiveProcess(e)).orElse(false), Duration.ofSeconds(30),
        "the terminated run's agent to be stopped");
    ResumeResult next = harness.resume("s1", ResumeMode.RESUME);
    assertThat(next.loaded()).isTrue();
    assertThat(next.providerSessionId()).isEqualTo(token);
  }

  @Test
  void aSessionWhoseResumeStillRunsIsLeftToItsSaga() throws Exception {
    harness.establishedSession("s1", FAILED);
    ResumeHandle resume = resumeHeldInLaunch("s1");

    assertThat(recovery.restoreStaleSessions()).isEmpty();

    assertThat(harness.state("s1")).isEqualTo(STARTING);
    assertThat(harness.lockHeld("s1")).isTrue();
    harness.agentMode("normal");
    assertThat(resume.await(Duration.ofMinutes(1)).finalState()).isEqualTo(WAITING_FOR_INPUT);
  }

  @Test
  void aStartingSessionNoResumeEverRanForIsRestoredToFailed() {
    harness.newSession("s2", SessionState.CREATED);
    harness.fixtures().exec("UPDATE task_sessions SET state = 'STARTING' WHERE id = ?", "s2");

    assertThat(recovery.restoreStaleSessions()).containsExactly("s2");

    assertThat(harness.state("s2")).isEqualTo(FAILED);
    assertThat(harness.transitions("s2")).containsExactly("STARTING>FAILED");
  }

  /** A resume of the session whose agent was started and waits in initialize until the mode file changes. */
  private ResumeHandle resumeHeldInLaunch(String sessionId) {
    harness.agentMode("hold-initialize");
    ResumeHandle resume = harness.start(sessionId, ResumeMode.RESUME);
    Await.until(() -> db.tx(h -> executors.find(h, sessionId)).map(e -> e.status().equals("starting")).orElse(false),
        Duration.ofSeconds(30), "the launch to start the agent");
    return resume;
  }
}
