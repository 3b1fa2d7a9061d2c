package dev.kandev.recovery.activities.resume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kandev.recovery.activities.acp.AcpTimeouts;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.agent.AgentHost;
import dev.kandev.recovery.activities.agent.AgentHostSettings;
import dev.kandev.recovery.activities.agent.AgentProfile;
import dev.kandev.recovery.activities.agent.AgentProfiles;
import dev.kandev.recovery.activities.credentials.broker.CredentialBroker;
import dev.kandev.recovery.activities.credentials.broker.CredentialPolicyResolver;
import dev.kandev.recovery.activities.credentials.github.GitHubAppCredentialResolver;
import dev.kandev.recovery.activities.credentials.redemption.GitCredentialEnvironment;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.MirrorExecutorsRunningStore;
import dev.kandev.recovery.activities.store.MirrorSessionIdentityStore;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.MirrorTranscriptStore;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.TranscriptStore;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.AgentActivities;
import dev.kandev.recovery.workflows.resume.LaunchHeartbeat;
import dev.kandev.recovery.workflows.resume.LaunchOutcome;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launch activity ({@link AgentActivitiesImpl#launchAgent}) in Temporal's activity test
 * environment, with the real test agent held in its {@code initialize} answer: the activity
 * heartbeats while the handshake runs, and a cancellation that reaches it through a heartbeat's
 * answer stops the agent process at once, not after the ACP initialize timeout.
 */
class LaunchAgentActivityTest {
  private static final String SESSION = "s-1";
  /** Far longer than the test waits: a stopped agent was stopped by the cancellation, not by this. */
  private static final Duration INITIALIZE_TIMEOUT = Duration.ofSeconds(90);
  /** The SDK sends a heartbeat at most every 80 % of this. */
  private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(2);

  @RegisterExtension final TestDatabase db = new TestDatabase();
  @TempDir Path dir;
  private Path modeFile;
  private AgentHost host;
  private TestActivityEnvironment temporal;
  private AgentActivities activities;
  /** Counts the heartbeats the activity sends while its agent is in the handshake. */
  private final CountDownLatch heartbeatsDuringHandshake = new CountDownLatch(2);
  private final ExecutorService launchThreads = Executors.newCachedThreadPool();
  private final AtomicInteger launchesRun = new AtomicInteger();
  private final ExecutorService callers = Executors.newCachedThreadPool();

  @BeforeEach
  void setUp() throws Exception {
    modeFile = dir.resolve("agent-mode");
    Files.writeString(modeFile, "hold-initialize");
    Path workspace = Files.createDirectories(dir.resolve("workspace"));
    db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", TestAgent.AGENT_ID, SessionState.STARTING, "{}")
        .exec("UPDATE task_sessions SET workspace_path = ? WHERE id = ?", workspace.toString(), SESSION);
    AgentProfile heldAgent = TestAgent.switchable(modeFile, dir.resolve("agent-state"));
    var executors = new MirrorExecutorsRunningStore();
    host = new AgentHost(new AgentHostSettings("test-host", "worker-1",
        AgentProfiles.of(heldAgent), AcpTimeouts.defaults().withInitialize(INITIALIZE_TIMEOUT), PermissionPolicy.REJECT,
        AgentHostSettings.inheritedFrom(System.getenv()), AgentProfile::argv),
        db.transactions(), new MirrorSessionIdentityStore(), executors, new MirrorTranscriptStore());
    temporal = TestActivityEnvironment.newInstance();
    temporal.registerActivitiesImplementations(new AgentActivitiesImpl(host, db.transactions(),
        new MirrorSessionStore(Json.mapper()), executors,
        new CredentialBroker(db.transactions(), new CredentialPolicyResolver(Json.mapper()),
            List.of(new GitHubAppCredentialResolver(Optional.empty(), Json.mapper(), Clock.systemUTC())), Json.mapper(),
            Clock.systemUTC()),
        new GitCredentialEnvironment(URI.create("http://127.0.0.1:1/"), dir.resolve("git-credential-helper")),
        launch -> {
          launchesRun.incrementAndGet();
          launchThreads.execute(launch);
        }));
    temporal.setActivityHeartbeatListener(Object.class, details -> {
      if (db.tx(h -> executors.find(h, SESSION)).map(e -> e.status().equals("starting")).orElse(false)) {
        heartbeatsDuringHandshake.countDown();
      }
    });
    activities = temporal.newActivityStub(AgentActivities.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(5))
        .setHeartbeatTimeout(HEARTBEAT_TIMEOUT)
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build());
  }

  @AfterEach
  void tearDown() {
    temporal.close();
    host.close();
    launchThreads.shutdownNow();
    callers.shutdownNow();
  }

  private CompletableFuture<LaunchOutcome> launch(Fence fence) {
    return CompletableFuture.supplyAsync(() -> activities.launchAgent(SESSION, List.of(), fence), callers);
  }

  private ExecutorRecord execution() {
    return db.tx(h -> new MirrorExecutorsRunningStore().find(h, SESSION)).orElseThrow();
  }

  @Test
  void heartbeatsWhileTheHandshakeRunsThenReturnsTheServingAgent() throws Exception {
    Fence fence = db.tx(h -> new ResumeLockStore().acquire(h, SESSION, "resume-1", Duration.ofMinutes(5)))
        .orElseThrow().fence();
    CompletableFuture<LaunchOutcome> launch = launch(fence);

    assertThat(heartbeatsDuringHandshake.await(30, TimeUnit.SECONDS))
        .as("two heartbeats sent while the agent holds its initialize answer").isTrue();
    assertThat(launch).as("still in the handshake").isNotDone();
    Files.writeString(modeFile, "normal");

    LaunchOutcome outcome = launch.get(30, TimeUnit.SECONDS);
    assertThat(outcome.loaded()).isFalse();
    assertThat(outcome.providerSessionId()).startsWith("sess_");
    assertThat(host.isRunning(SESSION)).isTrue();
    assertThat(execution().status()).isEqualTo("running");
    assertThat(execution().pid()).isEqualTo(outcome.pid());
  }

  /**
   * No heartbeat at the launch's start (the SDK would send it at once: a server round trip and a
   * write): the first comes once the launch has run for {@link LaunchHeartbeat#CALL_EVERY}, so a
   * launch done sooner sends none. Held in its handshake, this one runs longer and heartbeats.
   */
  @Test
  void theFirstHeartbeatComesOnlyOnceTheLaunchRanForTheHeartbeatInterval() throws Exception {
    List<Long> heartbeatNanos = new CopyOnWriteArrayList<>();
    temporal.setActivityHeartbeatListener(Object.class, details -> heartbeatNanos.add(System.nanoTime()));
    Fence fence = db.tx(h -> new ResumeLockStore().acquire(h, SESSION, "resume-1", Duration.ofMinutes(5)))
        .orElseThrow().fence();
    long started = System.nanoTime();
    CompletableFuture<LaunchOutcome> launch = launch(fence);
    Await.until(() -> !heartbeatNanos.isEmpty(), Duration.ofSeconds(30), "a heartbeat of the held launch");
    Files.writeString(modeFile, "normal");
    launch.get(30, TimeUnit.SECONDS);

    assertThat(Duration.ofNanos(heartbeatNanos.get(0) - started)).as("time to the first heartbeat")
        .isGreaterThanOrEqualTo(LaunchHeartbeat.CALL_EVERY);
  }

  @Test
  void aCancellationDeliveredThroughAHeartbeatStopsTheAgentInItsHandshake() throws Exception {
    CompletableFuture<LaunchOutcome> launch = launch(Fence.of(1));
    assertThat(heartbeatsDuringHandshake.await(30, TimeUnit.SECONDS))
        .as("two heartbeats sent while the agent holds its initialize answer").isTrue();
    long pid = execution().pid();

    temporal.requestCancelActivity();

    // Stopped when the cancellation arrived, not at the initialize timeout: the wait is bounded below
    // that timeout (a launch still running then fails here with a TimeoutException), and is otherwise
    // only a generous bound on a hang, no performance threshold.
    Duration belowInitializeTimeout = INITIALIZE_TIMEOUT.minusSeconds(30);
    Throwable failure = catchThrowable(() -> launch.get(belowInitializeTimeout.toSeconds(), TimeUnit.SECONDS));
    assertThat(failure).as("the activity ends cancelled").hasCauseInstanceOf(CanceledFailure.class);
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("agent pid %s alive", pid).isFalse();
    assertThat(host.isRunning(SESSION)).isFalse();
    assertThat(execution().status()).isEqualTo("failed");
    assertThat(execution().pid()).isNull();
  }

  /**
   * Launches run on the executor they are given, never the common fork-join pool: on a 3–4 core
   * host that pool has 2–3 threads, fewer than the launch cap, so launches queued behind each other.
   */
  @Test
  void aLaunchRunsOnTheLaunchExecutor() throws Exception {
    Files.writeString(modeFile, "normal");
    Fence fence = db.tx(h -> new ResumeLockStore().acquire(h, SESSION, "resume-1", Duration.ofMinutes(5)))
        .orElseThrow().fence();
    LaunchOutcome outcome = launch(fence).get(30, TimeUnit.SECONDS);
    assertThat(outcome.providerSessionId()).startsWith("sess_");
    assertThat(launchesRun).as("launches run on the launch executor").hasValue(1);
  }
}
