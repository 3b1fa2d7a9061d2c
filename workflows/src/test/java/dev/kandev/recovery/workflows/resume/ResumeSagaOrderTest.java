package dev.kandev.recovery.workflows.resume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.HostWaitBounds;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import dev.kandev.recovery.workflows.model.SessionState;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The saga's shape with recording stand-in activities: which compensations run, in which order,
 * for a failure at each step. The real parts are exercised by the worker module's tests.
 */
class ResumeSagaOrderTest {
  private static final String QUEUE = "saga-order";
  private static final String HOST = "h1";
  private TestWorkflowEnvironment env;
  private Recorder recorder;

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    RecoverySearchAttributes.ALL.forEach(key ->
        env.registerSearchAttribute(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
    recorder = new Recorder();
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(ResumeSessionWorkflowImpl.class);
    worker.registerActivitiesImplementations(recorder);
    env.newWorker(RecoveryTaskQueue.launchesOf(QUEUE, HOST)).registerActivitiesImplementations(recorder);
    env.newWorker(RecoveryTaskQueue.ofHost(QUEUE, HOST)).registerActivitiesImplementations(recorder);
    env.start();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private ResumeResult run(ResumeMode mode) {
    return stub().resume(new ResumeRequest("s1", mode, "user", "test"));
  }

  /** How long the launch of {@code request}'s run waited at most for a worker of its host. */
  private Duration launchHostWait(ResumeRequest request) {
    recorder.host = HOST;
    stub().resume(request);
    return env.getWorkflowClient().fetchHistory(ResumeRequest.workflowId("s1")).getEvents().stream()
        .filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .map(HistoryEvent::getActivityTaskScheduledEventAttributes)
        .filter(scheduled -> scheduled.getActivityType().getName().equals("LaunchAgent"))
        .map(scheduled -> Duration.ofSeconds(scheduled.getScheduleToStartTimeout().getSeconds()))
        .findFirst().orElseThrow();
  }

  private ResumeSessionWorkflow stub() {
    return env.getWorkflowClient().newWorkflowStub(ResumeSessionWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId(ResumeRequest.workflowId("s1")).build());
  }

  @Test
  void successRunsEveryStepInOrderAndNoCompensation() {
    ResumeResult result = run(ResumeMode.RESUME);

    assertThat(result.outcome()).isEqualTo(ResumeOutcome.RESUMED);
    assertThat(recorder.calls).containsExactly("acquireResumeLock", "readResumeContext", "markStarting",
        "issueCredentialLeaseForAttempt", "persistCredentialSnapshot", "launchAgent", "settleSession", "releaseResumeLock");
  }

  /**
   * The store steps and the lease are local activities: a successful resume takes 2 workflow tasks
   * and schedules only the launch as an activity; the lease is issued for the attempt's fence.
   */
  @Test
  void theStoreStepsAndTheLeaseRunAsLocalActivities() {
    run(ResumeMode.RESUME);

    List<HistoryEvent> events = env.getWorkflowClient().fetchHistory(ResumeRequest.workflowId("s1")).getEvents();
    assertThat(events.stream().filter(HistoryEvent::hasActivityTaskScheduledEventAttributes)
        .map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName()))
        .containsExactly("LaunchAgent");
    assertThat(events.stream().filter(e -> e.hasMarkerRecordedEventAttributes()
        && e.getMarkerRecordedEventAttributes().getMarkerName().equals("LocalActivity"))).hasSize(7);
    assertThat(events.stream().filter(HistoryEvent::hasWorkflowTaskCompletedEventAttributes)).hasSize(2);
    assertThat(recorder.fences.get("issueCredentialLeaseForAttempt").token()).isEqualTo(7);
  }

  /**
   * Each store write and compensation carries the lock's fence stamped with the workflow task that
   * makes it (its started event id: a stale copy of an earlier task is refused by its older one); the
   * launch carries the token alone, the number Kandev's executor reads.
   */
  @Test
  void everyStoreWriteCarriesTheWorkflowTaskThatMakesIt() {
    recorder.failAt = "settleSession";
    catchFailure();

    List<Long> taskStarts = env.getWorkflowClient().fetchHistory(ResumeRequest.workflowId("s1")).getEvents().stream()
        .filter(HistoryEvent::hasWorkflowTaskStartedEventAttributes).map(HistoryEvent::getEventId).toList();
    for (String firstTask : List.of("readResumeContext", "markStarting", "issueCredentialLeaseForAttempt", "persistCredentialSnapshot")) {
      assertThat(recorder.fences.get(firstTask)).as(firstTask).isEqualTo(Fence.of(7).inWorkflowTask(taskStarts.get(0)));
    }
    assertThat(recorder.fences.get("settleSession")).isEqualTo(Fence.of(7).inWorkflowTask(taskStarts.get(1)));
    // Each compensation in the task that runs it: later than the settle, the restore of the state last.
    long snapshotRestored = recorder.fences.get("restoreCredentialSnapshot").workflowTask();
    long stateRestored = recorder.fences.get("restorePriorState").workflowTask();
    assertThat(taskStarts).contains(snapshotRestored, stateRestored);
    assertThat(snapshotRestored).isGreaterThan(taskStarts.get(1));
    assertThat(stateRestored).isGreaterThan(snapshotRestored);
    assertThat(recorder.fences.get("launchAgent")).isEqualTo(Fence.of(7));
  }

  /**
   * A RESUME on a host records 20 events (26 before "fewer-events", 21 before its version 2): one
   * Version marker (it stands for the four a run asked before), the session, task, agent and outcome
   * in one search-attribute upsert as the resume ends, and no memo (its summary is in the progress lines).
   */
  @Test
  void aResumeOnAHostRecordsOneVersionMarkerOneUpsertAndNoMemo() {
    recorder.host = HOST;
    ResumeSessionWorkflow resume = stub();
    resume.resume(new ResumeRequest("s1", ResumeMode.RESUME, "user", "test"));

    List<HistoryEvent> events = history();
    assertThat(events).hasSize(20);
    assertThat(events.stream().filter(VersionMarkers::isVersionMarker)
        .map(e -> VersionMarkers.detail(e, "changeId", String.class))).containsExactly("fewer-events");
    assertThat(events.stream().filter(HistoryEvent::hasWorkflowPropertiesModifiedEventAttributes)).isEmpty();
    assertThat(upsertedKeys(events)).containsExactly(
        List.of("KandevAgentId", "KandevOutcome", "KandevSessionId", "KandevTaskId"));
    assertThat(resume.progress().lines())
        .contains("Resume of session s1 (task t1, agent test-agent) from FAILED, reason user, requested by test");
  }

  /** A resume that ends before it read its context is still found by its session: set with the outcome. */
  @Test
  void aResumeRefusedBeforeItsContextIsSearchableBySessionWithItsOutcome() {
    recorder.failAt = "readResumeContext";

    catchFailure();

    assertThat(upsertedKeys(history())).containsExactly(List.of("KandevOutcome", "KandevSessionId"));
  }

  /** A resume that fails after its context was read is found by its session, task and agent too. */
  @Test
  void aResumeThatFailsAfterItsContextIsSearchableByTaskAndAgentWithItsOutcome() {
    recorder.failAt = "markStarting";

    catchFailure();

    assertThat(upsertedKeys(history())).containsExactly(
        List.of("KandevAgentId", "KandevOutcome", "KandevSessionId", "KandevTaskId"));
  }

  private List<HistoryEvent> history() {
    return env.getWorkflowClient().fetchHistory(ResumeRequest.workflowId("s1")).getEvents();
  }

  private static List<List<String>> upsertedKeys(List<HistoryEvent> events) {
    return events.stream().filter(HistoryEvent::hasUpsertWorkflowSearchAttributesEventAttributes)
        .map(e -> e.getUpsertWorkflowSearchAttributesEventAttributes().getSearchAttributes().getIndexedFieldsMap()
            .keySet().stream().sorted().toList())
        .toList();
  }

  /** The long host wait is asked for explicitly; the free-text reason alone does not give it. */
  @Test
  void onlyARequestForTheRestartRecoveryHostWaitLetsTheLaunchWaitLonger() {
    assertThat(launchHostWait(ResumeRequest.restartRecovery("s1", "worker:w1"))).isEqualTo(HostWaitBounds.RESTART_RECOVERY);
    assertThat(launchHostWait(new ResumeRequest("s1", ResumeMode.RESUME, ResumeRequest.RESTART_RECOVERY, "kandev-api")))
        .isEqualTo(HostWaitBounds.DEFAULT);
    assertThat(launchHostWait(new ResumeRequest("s1", ResumeMode.RESUME, "user", "user:alice", RequestedHostWait.CONFIGURED)))
        .isEqualTo(HostWaitBounds.DEFAULT);
  }

  @Test
  void startFreshClearsTheIdentityBeforeTheTransition() {
    run(ResumeMode.START_FRESH);

    assertThat(recorder.calls).startsWith("acquireResumeLock", "readResumeContext", "clearIdentityForFreshStart", "markStarting");
  }

  @Test
  void launchFailureStopsTheAgentRestoresSnapshotRevokesLeaseAndRestoresStateThenUnlocks() {
    recorder.failAt = "launchAgent";

    assertThatThrownBy(() -> run(ResumeMode.RESUME))
        .isInstanceOf(WorkflowFailedException.class)
        .rootCause().hasMessageContaining("injected launchAgent failure");

    assertThat(recorder.calls).containsExactly("acquireResumeLock", "readResumeContext", "markStarting",
        "issueCredentialLeaseForAttempt", "persistCredentialSnapshot", "launchAgent",
        "stopAgent", "restoreCredentialSnapshot", "revokeCredentialLeases", "restorePriorState", "releaseResumeLock");
  }

  @Test
  void leaseFailureRevokesAndRestoresButHasNoSnapshotToRestore() {
    recorder.failAt = "issueCredentialLeaseForAttempt";

    WorkflowFailedException failure = catchFailure();

    ApplicationFailure application = (ApplicationFailure) failure.getCause();
    assertThat(application.getType()).isEqualTo("INJECTED");
    ResumeFailure details = application.getDetails().get(ResumeFailure.class);
    assertThat(details.step()).isEqualTo(ResumeStep.ISSUE_CREDENTIAL_LEASE);
    assertThat(details.sessionState()).isEqualTo(SessionState.FAILED);
    assertThat(details.recoveryActions()).containsExactly(ResumeMode.RESUME, ResumeMode.START_FRESH);
    assertThat(recorder.calls).containsExactly("acquireResumeLock", "readResumeContext", "markStarting",
        "issueCredentialLeaseForAttempt", "revokeCredentialLeases", "restorePriorState",
        "undoLostTaskWrites", "releaseResumeLock");
  }

  /**
   * Finding 15: a lost attempt of the workflow task may have issued a lease and persisted a snapshot
   * the history never shows; a failure before those steps undoes them by the attempt's fence, in the
   * task that compensates, before the lock is released.
   */
  @Test
  void aFailureBeforeTheLeaseStepUndoesWhatALostWorkflowTaskWroteUnderItsFence() {
    recorder.failAt = "markStarting";

    catchFailure();

    assertThat(recorder.calls.subList(0, 4))
        .containsExactly("acquireResumeLock", "readResumeContext", "markStarting", "restorePriorState");
    assertThat(recorder.calls.subList(4, 6)).containsExactlyInAnyOrder("revokeAttemptLeases", "undoLostTaskWrites");
    assertThat(recorder.calls.subList(6, recorder.calls.size())).containsExactly("releaseResumeLock");
    assertThat(recorder.fences.get("revokeAttemptLeases")).isEqualTo(recorder.fences.get("undoLostTaskWrites"))
        .satisfies(fence -> assertThat(fence.token()).isEqualTo(7))
        .satisfies(fence -> assertThat(fence.workflowTask()).isGreaterThan(recorder.fences.get("markStarting").workflowTask()));
  }

  @Test
  void aRejectedContextChangesNothingAndOffersNoAction() {
    recorder.failAt = "readResumeContext";

    ResumeFailure details = ((ApplicationFailure) catchFailure().getCause()).getDetails().get(ResumeFailure.class);

    assertThat(details.recoveryActions()).isEmpty();
    assertThat(details.step()).isEqualTo(ResumeStep.READ_CONTEXT);
    // Nothing of the history to compensate; what a lost attempt of its task may have written is undone.
    assertThat(recorder.calls.subList(0, 2)).containsExactly("acquireResumeLock", "readResumeContext");
    assertThat(recorder.calls.subList(2, 4)).containsExactlyInAnyOrder("revokeAttemptLeases", "undoLostTaskWrites");
    assertThat(recorder.calls.subList(4, recorder.calls.size())).containsExactly("releaseResumeLock");
  }

  @Test
  void aFailedLockAcquisitionStillReleasesByOwnerInCaseItsResultWasLost() {
    recorder.failAt = "acquireResumeLock";

    catchFailure();

    assertThat(recorder.calls).containsExactly("acquireResumeLock", "releaseResumeLock");
  }

  @Test
  void aCompensationFencedOutByANewerLockStopsQuietlyAndTheOthersStillRunOnce() {
    recorder.failAt = "launchAgent";
    recorder.fencedOutAt = "restoreCredentialSnapshot";

    ApplicationFailure application = (ApplicationFailure) catchFailure().getCause();

    assertThat(application.getType()).isEqualTo("INJECTED");
    assertThat(application.getDetails().get(ResumeFailure.class).step()).isEqualTo(ResumeStep.LAUNCH_AGENT);
    assertThat(recorder.calls).containsExactly("acquireResumeLock", "readResumeContext", "markStarting",
        "issueCredentialLeaseForAttempt", "persistCredentialSnapshot", "launchAgent",
        "stopAgent", "restoreCredentialSnapshot", "revokeCredentialLeases", "restorePriorState", "releaseResumeLock");
  }

  /** A Start fresh opens session/new (its stored token was cleared); a Resume loads the stored token. */
  @ParameterizedTest(name = "{0}: \"LAUNCH_AGENT: {1}\"")
  @CsvSource({"START_FRESH, session/new, session/load", "RESUME, session/load tok-1, session/new"})
  void theLaunchLineSaysWhichSessionTheAgentOpens(ResumeMode mode, String opens, String neverSays) {
    ResumeSessionWorkflow workflow = stub();
    workflow.resume(new ResumeRequest("s1", mode, "user", "test"));

    assertThat(workflow.progress().lines()).contains("LAUNCH_AGENT: " + opens)
        .noneSatisfy(line -> assertThat(line).contains(neverSays));
  }

  private WorkflowFailedException catchFailure() {
    try {
      run(ResumeMode.RESUME);
    } catch (WorkflowFailedException e) {
      return e;
    }
    throw new AssertionError("the workflow did not fail");
  }

  /**
   * Records each activity call; fails non-retryably at {@link #failAt}, and as a newer lock holder
   * would make it at {@link #fencedOutAt}.
   */
  static final class Recorder implements ResumeLockActivities, SessionActivities, CredentialActivities, AgentActivities {
    final List<String> calls = new CopyOnWriteArrayList<>();
    volatile String failAt = "";
    volatile String fencedOutAt = "";
    /** The session's executor host; empty: not bound (the shared queue). */
    volatile String host = "";
    /** The fence each step was last called with. */
    final Map<String, Fence> fences = new ConcurrentHashMap<>();
    /** Runs as the step {@code name} begins (e.g. a cancel arriving while it runs). */
    volatile java.util.function.Consumer<String> during = name -> {};

    private void call(String name, Fence fence) {
      fences.put(name, fence);
      call(name);
    }

    private void call(String name) {
      calls.add(name);
      during.accept(name);
      if (name.equals(failAt)) {
        throw ApplicationFailure.newNonRetryableFailure("injected " + name + " failure", "INJECTED");
      }
      if (name.equals(fencedOutAt)) {
        throw FailureType.RESUME_LOCK_LOST.failure("a newer resume holds the lock of session s1");
      }
    }

    @Override public Fence acquireResumeLock(String sessionId, String owner) { call("acquireResumeLock"); return Fence.of(7); }
    @Override public void releaseResumeLock(String sessionId, String owner) { call("releaseResumeLock"); }
    @Override public ResumeContext readResumeContext(String sessionId, ResumeMode mode, Fence fence) {
      call("readResumeContext", fence);
      return new ResumeContext(sessionId, "t1", "test-agent", SessionState.FAILED, "tok-1", null, host);
    }
    @Override public void clearIdentityForFreshStart(String sessionId, Fence fence) { call("clearIdentityForFreshStart", fence); }
    @Override public void markStarting(String sessionId, SessionState prior, String reason, Fence fence) { call("markStarting", fence); }
    @Override public void persistCredentialSnapshot(String sessionId, GitCredentialSnapshot s, Fence fence) { call("persistCredentialSnapshot", fence); }
    @Override public SessionState settleSession(String sessionId, Fence fence) { call("settleSession", fence); return SessionState.WAITING_FOR_INPUT; }
    @Override public SessionState restorePriorState(String sessionId, SessionState prior, String error, Fence fence) {
      call("restorePriorState", fence);
      return prior;
    }
    @Override public void restoreCredentialSnapshot(String sessionId, GitCredentialSnapshot previous, Fence fence) { call("restoreCredentialSnapshot", fence); }
    @Override public CredentialLease issueCredentialLease(String sessionId) {
      call("issueCredentialLease");
      return noLease();
    }
    @Override public CredentialLease issueCredentialLeaseForAttempt(String sessionId, Fence fence) {
      call("issueCredentialLeaseForAttempt", fence);
      return noLease();
    }
    private static CredentialLease noLease() {
      return new CredentialLease(List.of(), new GitCredentialSnapshot(1, "none", null, null, null, null, null, null, null, "default", "2026-01-01T00:00:00Z"));
    }
    @Override public void revokeCredentialLeases(String sessionId) { call("revokeCredentialLeases"); }
    @Override public void revokeAttemptLeases(String sessionId, Fence fence) { call("revokeAttemptLeases", fence); }
    @Override public void undoLostTaskWrites(String sessionId, String errorMessage, Fence fence) {
      call("undoLostTaskWrites", fence);
    }
    @Override public LaunchOutcome launchAgent(String sessionId, List<String> leaseIds, Fence fence) {
      call("launchAgent", fence);
      return new LaunchOutcome("tok-1", true, 42, "test-agent");
    }
    @Override public void stopAgent(String sessionId) { call("stopAgent"); }
  }
}
