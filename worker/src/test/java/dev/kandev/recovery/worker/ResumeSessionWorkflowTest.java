package dev.kandev.recovery.worker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.workflows.client.ResumeFailedException;
import dev.kandev.recovery.workflows.client.ResumeHandle;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.cli.ResumeCommand;
import dev.kandev.recovery.worker.harness.ByTypeName;
import dev.kandev.recovery.worker.harness.GitHubAppStandIn;
import dev.kandev.recovery.worker.harness.RecordedHistories;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.client.InvalidRequestException;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.AgentActivities;
import dev.kandev.recovery.workflows.resume.CredentialActivities;
import dev.kandev.recovery.workflows.resume.CredentialLease;
import dev.kandev.recovery.workflows.resume.LaunchOutcome;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributes;
import io.temporal.failure.ApplicationFailure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The spec's resume regression scenarios, against the real worker, on both store layouts: our
 * mirror and Kandev's own tables (the input checks, which reach no store, run on the mirror only).
 */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
public class ResumeSessionWorkflowTest {
  /** Session states the credential step saw at its boundary, and snapshots the launch step saw. */
  private final List<SessionState> statesAtLeaseBoundary = new CopyOnWriteArrayList<>();
  private final List<String> snapshotsAtLaunch = new CopyOnWriteArrayList<>();
  private final StoreLayout.Kind layout;
  @RegisterExtension @Order(1) final TestDatabase db;
  @RegisterExtension @Order(2) final ResumeHarness harness;

  public ResumeSessionWorkflowTest(StoreLayout.Kind layout) {
    this.layout = layout;
    this.db = new TestDatabase(layout);
    this.harness = new ResumeHarness(db, observeBoundaries());
  }

  /** The test reaches no store: once, on the mirror, is enough. */
  private void storeIndependent() {
    assumeTrue(layout == StoreLayout.Kind.MIRROR, "reaches no store; runs on the mirror layout");
  }

  @Test
  void childExitingBeforeAcpInitializeOffersRecoveryAndKeepsTheSameTokenForTheNextResume() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.agentMode("exit-before-initialize");

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(ResumeStep.LAUNCH_AGENT);
    assertThat(failure.failureType()).isEqualTo("AGENT_EXITED_BEFORE_INITIALIZE");
    assertThat(failure.recoveryActions()).containsExactly(ResumeMode.RESUME, ResumeMode.START_FRESH);
    assertThat(failure.sessionState()).isEqualTo(FAILED);
    harness.assertRecoverable("s1", FAILED, token);
    assertThat(db.tx((Handle h) -> harness.sessions().get(h, "s1")).errorMessage()).contains("AGENT_EXITED_BEFORE_INITIALIZE");
    RecordedHistories.recordIfAsked(harness.history("s1"), "one-upsert-resume-launch-failure-compensated");

    harness.agentMode("normal");
    ResumeResult next = harness.resume("s1", ResumeMode.RESUME);

    assertThat(next.outcome()).isEqualTo(ResumeOutcome.RESUMED);
    assertThat(next.loaded()).isTrue();
    assertThat(next.providerSessionId()).isEqualTo(token);
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
  }

  /**
   * Kandev's tables: a resume shows our agent in Kandev's executors_running row and closes it at the
   * stop; once Kandev's own agent is live there, a resume is refused before STARTING, the token kept.
   */
  @Test
  void kandevSeesOurAgentAndAResumeOfASessionWithKandevsLiveAgentIsRefusedBeforeStarting() throws Exception {
    assumeTrue(layout == StoreLayout.Kind.KANDEV, "Kandev's executors_running: the kandev layout only");
    harness.newSession("s1", SessionState.CREATED);
    ResumeResult first = harness.resume("s1", ResumeMode.START_FRESH);
    String k = db.layout().kandevSchema();
    String row = "SELECT status || '|' || runtime || '|' || (pid > 0) || '|' || resume_token FROM " + k
        + ".executors_running WHERE session_id = 's1'";
    assertThat(db.fixtures().string(row)).isEqualTo("ready|kandev-recovery|true|" + first.providerSessionId());
    harness.components().agentHost().stop("s1");
    assertThat(db.fixtures().string(row)).isEqualTo("stopped|kandev-recovery|false|" + first.providerSessionId());

    // Kandev's own launch of the session (its lifecycle upsert): its execution, ready.
    db.fixtures().exec("UPDATE " + k + ".executors_running SET status = 'ready', runtime = 'standalone',"
        + " agent_execution_id = 'kandev-exec' WHERE session_id = 's1'");
    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.START_FRESH);

    assertThat(failure.step()).isEqualTo(ResumeStep.READ_CONTEXT);
    assertThat(failure.failureType()).isEqualTo("KANDEV_AGENT_RUNNING");
    assertThat(failure.sessionState()).isNull();
    assertThat(failure.recoveryActions()).isEmpty();
    assertThat(harness.state("s1")).isEqualTo(WAITING_FOR_INPUT);
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(first.providerSessionId(), first.providerSessionId()));
    assertThat(harness.transitions("s1")).last().isEqualTo("STARTING>WAITING_FOR_INPUT");
  }

  /**
   * Kandev's boot settles a session our resume holds STARTING (its agent held in initialize) and, on
   * Kandev's tables, marks the task interrupted: the resume ends as a lost race, not an agent failure,
   * its agent stopped and nothing restored over that state; the next resume clears the mark.
   */
  @Test
  void aSessionAnotherWriterSettledMidResumeEndsAsALostRaceAndTheNextResumeClearsTheMark() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.agentMode("hold-initialize");
    ResumeHandle resume = harness.start("s1", ResumeMode.RESUME);
    // (Kandev's row in the kandev layout: it shows our execution too)
    Await.until(() -> String.valueOf(db.fixtures().string("SELECT status FROM executors_running WHERE session_id = 's1'")),
        "starting"::equals, Duration.ofMinutes(1), "the agent to start");

    String sessions = db.layout().kandevTable("task_sessions");
    db.fixtures().exec("UPDATE " + sessions + " SET state = 'WAITING_FOR_INPUT' WHERE id = 's1'");
    if (layout == StoreLayout.Kind.KANDEV) {
      db.fixtures().exec("UPDATE " + db.layout().kandevTable("tasks")
          + " SET metadata = '{\"interrupted_at\":\"2026-12-06T00:00:00Z\"}' WHERE id = 't-s1'");
    }
    harness.agentMode("normal");
    ResumeFailure failure;
    try {
      throw new AssertionError("the resume succeeded: " + resume.await(Duration.ofMinutes(2)));
    } catch (ResumeFailedException e) {
      failure = e.failure();
    }

    assertThat(failure.step()).isEqualTo(ResumeStep.LAUNCH_AGENT);
    assertThat(failure.failureType()).isEqualTo("SESSION_STATE_SUPERSEDED");
    assertThat(failure.sessionState()).isEqualTo(WAITING_FOR_INPUT);
    assertThat(harness.state("s1")).isEqualTo(WAITING_FOR_INPUT);
    assertThat(harness.transitions("s1")).last().isEqualTo("FAILED>STARTING");
    assertThat(harness.components().agentHost().isRunning("s1")).isFalse();
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    if (layout == StoreLayout.Kind.KANDEV) {
      assertThat(db.fixtures().string("SELECT metadata FROM " + db.layout().kandevTable("tasks") + " WHERE id = 't-s1'"))
          .as("the boot's mark stays after the lost race").contains("interrupted_at");
      ResumeResult next = harness.resume("s1", ResumeMode.RESUME);
      assertThat(next.outcome()).isEqualTo(ResumeOutcome.RESUMED);
      assertThat(db.fixtures().string("SELECT metadata FROM " + db.layout().kandevTable("tasks") + " WHERE id = 't-s1'"))
          .as("a resume clears it as Kandev's own transition does").doesNotContain("interrupted_at");
    }
  }

  @Test
  void transportDisconnectingBeforeSessionLoadCompletesKeepsTheTokenForALaterHealthyProcess() throws Exception {
    String token = harness.establishedSession("s1", WAITING_FOR_INPUT);
    harness.agentMode("close-before-load");

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.failureType()).isEqualTo("AGENT_TRANSPORT_CLOSED");
    harness.assertRecoverable("s1", WAITING_FOR_INPUT, token);

    harness.agentMode("normal");
    ResumeResult later = harness.resume("s1", ResumeMode.RESUME);

    assertThat(later.providerSessionId()).isEqualTo(token);
    assertThat(later.loaded()).isTrue();
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
  }

  @Test
  void failedGitHubBackedSessionIsStartingBeforeTheLeaseIsRequestedAndTheAgentCanUseIt() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.gitHubBacked("s1", "github_app");
    statesAtLeaseBoundary.clear();

    ResumeResult result = harness.resume("s1", ResumeMode.RESUME);

    assertThat(statesAtLeaseBoundary).containsExactly(STARTING);
    assertThat(result.finalState()).isEqualTo(WAITING_FOR_INPUT);
    assertThat(result.providerSessionId()).isEqualTo(token);
    assertThat(harness.transitions("s1")).endsWith("FAILED>STARTING", "STARTING>WAITING_FOR_INPUT");
    // The launched agent's own git asks the broker through the project's credential helper.
    String reply = harness.prompt("s1", "git-credential:github.com/acme/widgets").responseText();
    assertThat(reply).contains("username=x-access-token").doesNotContain("password-length=0");
    assertThat(harness.github().issued()).hasSize(1);
    String leaseReply = harness.prompt("s1", "env:KANDEV_CREDENTIAL_LEASE").responseText();
    String leaseToken = leaseReply.replaceAll("(?s).*KANDEV_CREDENTIAL_LEASE=([A-Za-z0-9_-]{43}).*", "$1");
    assertThat(leaseToken).hasSize(43);
    harness.knownSecret(leaseToken);
    RecordedHistories.recordIfAsked(harness.history("s1"), "one-upsert-resume-success-github");
  }

  @Test
  void resumeSelectingAnotherCredentialPolicyPersistsTheNewSnapshotBeforeLaunch() throws Exception {
    harness.establishedSession("s1", FAILED);
    harness.gitHubBacked("s1", "none");
    harness.resume("s1", ResumeMode.RESUME);
    harness.components().agentHost().stop("s1");
    db.tx(h -> harness.sessions().transition(h, "s1", Set.of(WAITING_FOR_INPUT), FAILED, "test", "exited", Fence.none()));
    assertThat(snapshot(harness.snapshotJson("s1")).path("policy").asText()).isEqualTo("none");
    snapshotsAtLaunch.clear();

    harness.selectPolicy("github_app");
    harness.resume("s1", ResumeMode.RESUME);

    assertThat(snapshotsAtLaunch).hasSize(1);
    JsonNode atLaunch = snapshot(snapshotsAtLaunch.get(0));
    assertThat(atLaunch.path("policy").asText()).isEqualTo("github_app");
    assertThat(atLaunch.path("source").asText()).isEqualTo("workspace");
    assertThat(atLaunch.path("installationId").asLong()).isEqualTo(GitHubAppStandIn.INSTALLATION);
    assertThat(atLaunch.path("leaseId").asText()).startsWith("lease-");
    assertThat(snapshot(harness.snapshotJson("s1"))).isEqualTo(atLaunch);
  }

  @Test
  void credentialIssuanceFailingAfterStartingRestoresThePriorStateWithNoStaleStarting() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    // A repository of another workspace linked to the task: the broker refuses its scope.
    harness.credentials().repository("repo-other", "ws-other", "github.com", "acme", "widgets")
        .link(ResumeHarness.taskOf("s1"), "repo-other", 0);
    harness.selectPolicy("github_app");
    statesAtLeaseBoundary.clear();

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(ResumeStep.ISSUE_CREDENTIAL_LEASE);
    assertThat(failure.failureType()).isEqualTo("CREDENTIAL_SCOPE_DENIED");
    assertThat(statesAtLeaseBoundary).containsExactly(STARTING);
    harness.assertRecoverable("s1", FAILED, token);
    RecordedHistories.recordIfAsked(harness.history("s1"), "lost-task-writes-resume-credential-rejected");
  }

  @Test
  void startFreshReplacesTheTokenOnlyAfterSessionNewSucceeds() throws Exception {
    String old = harness.establishedSession("s1", FAILED);
    harness.agentMode("reject-new");

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.START_FRESH);

    assertThat(failure.failureType()).isEqualTo("AGENT_SESSION_NEW_FAILED");
    assertThat(failure.recoveryActions()).containsExactly(ResumeMode.START_FRESH);
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity("", ""));
    assertThat(harness.state("s1")).isEqualTo(FAILED);
    String gone = "resume failed at LAUNCH_AGENT (AGENT_SESSION_NEW_FAILED): Start fresh cleared the stored conversation"
        + " (provider session " + old + "), which can no longer be resumed; ";
    assertThat(failure.message()).startsWith(gone);
    assertThat(db.tx((Handle h) -> harness.sessions().get(h, "s1")).errorMessage()).startsWith(gone);

    harness.agentMode("normal");
    ResumeResult fresh = harness.resume("s1", ResumeMode.START_FRESH);

    assertThat(fresh.outcome()).isEqualTo(ResumeOutcome.STARTED_FRESH);
    assertThat(fresh.loaded()).isFalse();
    assertThat(fresh.providerSessionId()).isNotEqualTo(old).isNotBlank();
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(fresh.providerSessionId(), fresh.providerSessionId()));
    RecordedHistories.recordIfAsked(harness.history("s1"), "one-upsert-resume-start-fresh");
  }

  @Test
  void theCliWarnsBeforeAStartFreshAndItsFailureSaysTheConversationIsGone() throws Exception {
    String old = harness.establishedSession("s1", FAILED);
    harness.agentMode("reject-new");
    ResumeRequest fresh = new ResumeRequest("s1", ResumeMode.START_FRESH, "user", "cli");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    int exit = ResumeCommand.follow(harness.resumes(), fresh, Duration.ofMinutes(2), new PrintStream(bytes, true, StandardCharsets.UTF_8));

    List<String> out = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(exit).isOne();
    assertThat(out.get(0)).isEqualTo("Start fresh: the stored conversation of session s1 will no longer be resumable"
        + " (it is cleared before the new one is created, even if that fails)");
    assertThat(out.get(1)).startsWith("starting fresh resume-session-s1 (run ");
    assertThat(out).contains("  LAUNCH_AGENT: session/new");
    assertThat(out).anyMatch(line -> line.startsWith("  resume failed at LAUNCH_AGENT (AGENT_SESSION_NEW_FAILED): Start fresh"
        + " cleared the stored conversation (provider session " + old + "), which can no longer be resumed; "));
    assertThat(out).last().isEqualTo("  recovery actions: [START_FRESH]");
    assertThat(new ResumeRequest("s1", ResumeMode.RESUME, "user", "cli").warning()).as("a Resume clears nothing").isEmpty();
  }

  @Test
  void aFailedResumeDoesNotSayTheConversationIsGone() throws Exception {
    String token = harness.establishedSession("s1", FAILED);
    harness.agentMode("exit-before-initialize");

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.message()).doesNotContain("can no longer be resumed");
    harness.assertRecoverable("s1", FAILED, token);
  }

  @Test
  void malformedStartsByTypeNameFailClearlyAndChangeNothing() throws Exception {
    storeIndependent();
    harness.establishedSession("s1", FAILED);
    String before = harness.fixtures().dump("task_sessions");

    ApplicationFailure unknownMode = failureOf("resume-session-s1", Map.of("sessionId", "s1", "mode", "RESUME_PLEASE"));
    assertThat(unknownMode.getType()).isEqualTo("INVALID_REQUEST");
    assertThat(unknownMode.getOriginalMessage()).isEqualTo("invalid ResumeSessionWorkflow input: field 'mode' "
        + "\"RESUME_PLEASE\" is not one of RESUME, START_FRESH; nothing was done");
    ApplicationFailure noSession = failureOf("resume-session-x", Map.of("mode", "RESUME"));
    assertThat(noSession.getType()).isEqualTo("INVALID_REQUEST");
    assertThat(noSession.getOriginalMessage()).isEqualTo("sessionId is missing; nothing was done");
    ApplicationFailure unknownSession = failureOf("resume-session-nope", Map.of("sessionId", "nope", "mode", "RESUME"));
    assertThat(unknownSession.getType()).isEqualTo("SESSION_NOT_FOUND");
    assertThat(unknownSession.getOriginalMessage()).contains("unknown session 'nope'");
    assertThat(harness.fixtures().dump("task_sessions")).isEqualTo(before);
  }

  @Test
  void aStartByTypeNameWithANullOrNoInputFailsAtOnceAsAnInvalidRequest() throws Exception {
    storeIndependent();
    harness.establishedSession("s1", FAILED);
    String before = harness.fixtures().dump("task_sessions");

    for (Object[] input : List.of(new Object[] {null}, new Object[0])) {
      WorkflowStub stub = ByTypeName.start(harness.client(), ResumeHarness.QUEUE, "ResumeSessionWorkflow",
          "resume-session-s1", input);
      ApplicationFailure failure = ByTypeName.failure(harness.client(), stub);
      assertThat(failure.getType()).isEqualTo("INVALID_REQUEST");
      assertThat(failure.getOriginalMessage())
          .isEqualTo("a resume needs an input with a sessionId; the payload was null or missing; nothing was done");
    }
    assertThat(harness.fixtures().dump("task_sessions")).isEqualTo(before);
    assertThat(harness.lockHeld("s1")).isFalse();
  }

  @Test
  void unknownFieldsInTheInputAreIgnored() throws Exception {
    storeIndependent();
    String token = harness.establishedSession("s1", FAILED);

    WorkflowStub stub = ByTypeName.start(harness.client(), ResumeHarness.QUEUE, "ResumeSessionWorkflow", "resume-session-s1",
        ByTypeName.json("{\"sessionId\": \"s1\", \"mode\": \"RESUME\", \"priority\": 3, \"origin\": {\"ui\": \"web\"}}"));
    ResumeResult result = stub.getResult(ByTypeName.AT_ONCE.toSeconds(), TimeUnit.SECONDS, ResumeResult.class);

    assertThat(result.outcome()).isEqualTo(ResumeOutcome.RESUMED);
    assertThat(result.providerSessionId()).isEqualTo(token);
    // the workflow sets every documented search attribute itself: this starter set none
    SearchAttributes attributes = stub.describe().getTypedSearchAttributes();
    assertThat(attributes.get(RecoverySearchAttributes.SESSION_ID)).isEqualTo("s1");
    assertThat(attributes.get(RecoverySearchAttributes.TASK_ID)).isEqualTo(ResumeHarness.taskOf("s1"));
    assertThat(attributes.get(RecoverySearchAttributes.AGENT_ID)).isEqualTo(TestAgent.AGENT_ID);
    assertThat(attributes.get(RecoverySearchAttributes.OUTCOME)).isEqualTo("RESUMED");
  }

  @Test
  void wrongJsonTypesAndMalformedJsonFailAtOnceInTheContractsWords() throws Exception {
    storeIndependent();
    harness.establishedSession("s1", FAILED);
    String before = harness.fixtures().dump("task_sessions");
    Map<String, String> expected = Map.of(
        "{\"sessionId\": 42, \"mode\": \"RESUME\"}", "field 'sessionId' 42 is not a string",
        "{\"sessionId\": {\"id\": \"s1\"}, \"mode\": \"RESUME\"}", "field 'sessionId' must be a string",
        "{\"sessionId\": \"s1\", \"mode\": 1}", "field 'mode' 1 is not one of RESUME, START_FRESH",
        "[\"s1\", \"RESUME\"]", "the payload must be a JSON object",
        "{\"sessionId\": \"s1\", \"mode\": ", "it is not valid JSON");

    int n = 0;
    for (Map.Entry<String, String> input : expected.entrySet()) {
      WorkflowStub stub = ByTypeName.start(harness.client(), ResumeHarness.QUEUE, "ResumeSessionWorkflow",
          "resume-session-s1-" + n++, ByTypeName.json(input.getKey()));
      ApplicationFailure failure = ByTypeName.failure(harness.client(), stub);
      assertThat(failure.getType()).as(input.getKey()).isEqualTo("INVALID_REQUEST");
      assertThat(failure.getOriginalMessage()).as(input.getKey())
          .startsWith("invalid ResumeSessionWorkflow input: " + input.getValue())
          .endsWith("; nothing was done");
      ByTypeName.assertReadableByAnyStarter(failure.getOriginalMessage());
    }
    assertThat(harness.fixtures().dump("task_sessions")).isEqualTo(before);
  }

  @Test
  void sessionIdsPastTheLimitsOrWithControlCharactersAreInvalidRequestsAndChangeNothing() throws Exception {
    harness.establishedSession("s1", FAILED);
    String before = harness.fixtures().dump("task_sessions");
    Map<String, String> expected = Map.of(
        "s".repeat(10_000), "sessionId is 10000 bytes long; at most 240 (UTF-8) are allowed; nothing was done",
        "é".repeat(128), "sessionId is 256 bytes long; at most 240 (UTF-8) are allowed; nothing was done",
        "s1\n", "sessionId contains a control character (U+000A at index 2); nothing was done",
        "s\u00001", "sessionId contains a control character (U+0000 at index 1); nothing was done",
        "  ", "sessionId is missing; nothing was done");

    int n = 0;
    for (Map.Entry<String, String> id : expected.entrySet()) {
      // a starter that builds a short workflow id of its own still gets the workflow's own check
      ApplicationFailure failure = failureOf("resume-session-bad-" + n++, Map.of("sessionId", id.getKey(), "mode", "RESUME"));
      assertThat(failure.getType()).isEqualTo("INVALID_REQUEST");
      assertThat(failure.getOriginalMessage()).isEqualTo(id.getValue());

      Throwable refused = catchThrowable(() -> harness.resumes().start(new ResumeRequest(id.getKey(), ResumeMode.RESUME, "user", "test")));
      assertThat(refused).isInstanceOf(InvalidRequestException.class).hasMessage(id.getValue());
      assertThat(((InvalidRequestException) refused).type()).isEqualTo("INVALID_REQUEST");
      assertThat(ByTypeName.exists(harness.client(), ResumeRequest.workflowId(id.getKey())))
          .as("the client started nothing").isFalse();
    }

    // the longest valid id is read, and then is simply not a session
    String longest = "é".repeat(119) + "xx";
    assertThat(longest.getBytes(StandardCharsets.UTF_8)).hasSize(240);
    assertThat(failureOf(ResumeRequest.workflowId(longest), Map.of("sessionId", longest, "mode", "RESUME")).getType())
        .isEqualTo("SESSION_NOT_FOUND");
    assertThat(harness.fixtures().dump("task_sessions")).isEqualTo(before);
  }

  private ApplicationFailure failureOf(String workflowId, Map<String, String> input) {
    return ByTypeName.failure(harness.client(),
        ByTypeName.start(harness.client(), ResumeHarness.QUEUE, "ResumeSessionWorkflow", workflowId, input));
  }

  private static JsonNode snapshot(String json) throws Exception {
    return Json.mapper().readTree(json);
  }

  private UnaryOperator<Object> observeBoundaries() {
    return activity -> {
      if (activity instanceof CredentialActivities credentials) {
        return new CredentialActivities() {
          @Override
          public CredentialLease issueCredentialLease(String sessionId) {
            statesAtLeaseBoundary.add(harness.state(sessionId));
            return credentials.issueCredentialLease(sessionId);
          }

          @Override
          public CredentialLease issueCredentialLeaseForAttempt(String sessionId, Fence fence) {
            statesAtLeaseBoundary.add(harness.state(sessionId));
            return credentials.issueCredentialLeaseForAttempt(sessionId, fence);
          }

          @Override
          public void revokeCredentialLeases(String sessionId) {
            credentials.revokeCredentialLeases(sessionId);
          }

          @Override
          public void revokeAttemptLeases(String sessionId, Fence fence) {
            credentials.revokeAttemptLeases(sessionId, fence);
          }
        };
      }
      if (activity instanceof AgentActivities agents) {
        return new AgentActivities() {
          @Override
          public LaunchOutcome launchAgent(String sessionId, List<String> leaseIds, Fence fence) {
            snapshotsAtLaunch.add(harness.snapshotJson(sessionId));
            return agents.launchAgent(sessionId, leaseIds, fence);
          }

          @Override
          public void stopAgent(String sessionId) {
            agents.stopAgent(sessionId);
          }
        };
      }
      return activity;
    };
  }
}
