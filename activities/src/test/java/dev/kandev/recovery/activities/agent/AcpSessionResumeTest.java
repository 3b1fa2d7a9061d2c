package dev.kandev.recovery.activities.agent;

import static dev.kandev.recovery.workflows.model.AgentFailureClass.AGENT_SESSION_LOAD_REJECTED;
import static dev.kandev.recovery.workflows.model.AgentFailureClass.AGENT_TRANSPORT_CLOSED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.acp.AcpTimeouts;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.store.TranscriptEntry;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.SessionState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored session reattached with {@code session/resume} when the agent advertises it, with
 * {@code session/load} when it does not: the same provider session, no replay and no duplicate in
 * the transcript, and each failure of the resume classified as the load's and keeping the token.
 * The test agent runs as a real child process; its mode file switches the next process's mode.
 */
class AcpSessionResumeTest {
  private static final String SESSION = "s-1";

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final AcpHarness harness = new AcpHarness(db);
  @TempDir Path workspace;
  @TempDir Path stateDir;
  @TempDir Path folder;
  private Path modeFile;
  private Path launchLog;

  @BeforeEach
  void startHost() {
    modeFile = folder.resolve("mode");
    launchLog = folder.resolve("launches.jsonl");
    mode("normal");
    start(AcpHarness.TIMEOUTS);
  }

  private void start(AcpTimeouts timeouts) {
    AgentProfile switchable = TestAgent.switchable(modeFile, stateDir);
    List<String> argv = new ArrayList<>(switchable.argv());
    argv.add("--launch-log=" + launchLog);
    AgentProfile logged = new AgentProfile(switchable.agentId(), argv, switchable.env(), null);
    harness.start(AgentProfiles.of(logged), timeouts, PermissionPolicy.ALLOW);
  }

  private void mode(String mode) {
    try {
      Files.writeString(modeFile, mode);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A session with two turns (four messages) whose agent is gone; returns its token. */
  private String conversation() {
    db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", "test-agent", SessionState.STARTING, "{}");
    String token = harness.launch(SESSION, workspace).providerSessionId();
    db.fixtures().exec("UPDATE task_sessions SET state = 'WAITING_FOR_INPUT' WHERE id = ?", SESSION);
    harness.turns.prompt(SESSION, "first question");
    harness.turns.prompt(SESSION, "second question");
    harness.host.stop(SESSION);
    return token;
  }

  private List<TranscriptEntry> transcript() {
    return db.tx((Handle h) -> TestStores.transcript(h, SESSION));
  }

  /** The ACP methods of the launch log's {@code session} events, oldest first. */
  private List<String> sessionMethods() throws IOException {
    return Files.readAllLines(launchLog).stream()
        .map(line -> {
          try {
            return Json.mapper().readTree(line);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        })
        .filter(event -> event.path("event").asText().equals("session"))
        .map((JsonNode event) -> event.path("method").asText("session/new"))
        .toList();
  }

  private AgentLaunchException launchFailing() {
    return catchThrowableOfType(AgentLaunchException.class, () -> harness.launch(SESSION, workspace));
  }

  @Test
  void advertisedResumeReattachesTheSameSessionWithoutAReplayAndTheTranscriptStaysAsItWas() throws Exception {
    String token = conversation();
    List<TranscriptEntry> before = transcript();
    assertThat(before).extracting(TranscriptEntry::role).containsExactly("user", "agent", "user", "agent");
    mode("resume");

    LaunchResult resumed = harness.launch(SESSION, workspace);

    assertThat(resumed.method()).isEqualTo(SessionMethod.RESUME);
    assertThat(resumed.loaded()).as("the stored session was kept").isTrue();
    assertThat(resumed.providerSessionId()).isEqualTo(token);
    assertThat(resumed.replayedMessages()).isZero();
    assertThat(transcript()).isEqualTo(before);
    harness.assertTokenUnchanged(SESSION, token);
    assertThat(TestAgent.storedSessions(stateDir)).containsExactly(token);

    harness.turns.prompt(SESSION, "third question");
    assertThat(transcript()).extracting(TranscriptEntry::content).as("the resumed session goes on, nothing twice")
        .containsExactly("first question", "Working on: first question", "second question",
            "Working on: second question", "third question", "Working on: third question");
    assertThat(sessionMethods()).containsExactly("session/new", "session/resume");
  }

  @Test
  void withoutTheCapabilityTheSameAgentIsLoadedAndItsReplayIsNotDuplicated() throws Exception {
    String token = conversation();
    List<TranscriptEntry> before = transcript();

    LaunchResult loaded = harness.launch(SESSION, workspace);

    assertThat(loaded.method()).isEqualTo(SessionMethod.LOAD);
    assertThat(loaded.providerSessionId()).isEqualTo(token);
    assertThat(loaded.replayedMessages()).isEqualTo(4);
    assertThat(transcript()).isEqualTo(before);
    assertThat(sessionMethods()).containsExactly("session/new", "session/load");
  }

  @Test
  void aRefusedResumeIsARejectedLoadAndKeepsTheTokenWithoutANewSession() {
    String token = conversation();
    List<TranscriptEntry> before = transcript();
    mode("reject-resume");

    AgentLaunchException e = launchFailing();

    assertThat(e.failureClass()).isEqualTo(AGENT_SESSION_LOAD_REJECTED);
    assertThat(e.retryable()).isFalse();
    assertThat(e.acpError()).startsWith("-32002 Resource not found");
    assertThat(e.getMessage()).contains("rejected session/resume of stored session " + token);
    harness.assertTokenUnchanged(SESSION, token);
    assertThat(TestAgent.storedSessions(stateDir)).as("no session/new fallback").containsExactly(token);
    assertThat(transcript()).isEqualTo(before);
    assertThat(harness.executor(SESSION).status()).isEqualTo("failed");
    assertThat(harness.host.isRunning(SESSION)).isFalse();
  }

  @Test
  void anAgentExitingBeforeItAnswersTheResumeIsAClosedTransportAndAHealthyProcessResumesLater() {
    String token = conversation();
    mode("close-before-resume");

    AgentLaunchException e = launchFailing();

    assertThat(e.failureClass()).isEqualTo(AGENT_TRANSPORT_CLOSED);
    assertThat(e.retryable()).isTrue();
    assertThat(e.exitCode()).isEqualTo(7);
    assertThat(e.stderrTail()).contains("closing stdout before answering session/resume");
    assertThat(e.getMessage()).contains("transport closed before session/resume of " + token);
    harness.assertTokenUnchanged(SESSION, token);

    mode("resume");
    LaunchResult later = harness.launch(SESSION, workspace);
    assertThat(later.method()).isEqualTo(SessionMethod.RESUME);
    assertThat(later.providerSessionId()).isEqualTo(token);
  }

  @Test
  void aResumeThatIsNeverAnsweredTimesOutAsAClosedTransportAndTheChildIsKilled() {
    String token = conversation();
    mode("hold-resume");
    start(AcpHarness.TIMEOUTS.withSessionLoad(Duration.ofSeconds(2)));

    AgentLaunchException e = launchFailing();

    assertThat(e.failureClass()).isEqualTo(AGENT_TRANSPORT_CLOSED);
    assertThat(e.exitCode()).as("killed while still running").isNull();
    assertThat(e.getMessage()).contains("session/resume of " + token + " was not answered within PT2S");
    harness.assertTokenUnchanged(SESSION, token);
    assertThat(harness.host.isRunning(SESSION)).isFalse();
    assertThat(harness.executor(SESSION).pid()).isNull();
  }
}
