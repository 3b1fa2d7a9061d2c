package dev.kandev.recovery.worker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.resume.ResumeStep;
import io.temporal.api.history.v1.HistoryEvent;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The stored provider session reattached through the whole resume on a real Temporal dev server:
 * with {@code session/resume} when the agent advertises it, with {@code session/load} when not.
 * Both keep the same provider session and leave the transcript as it was; a resume the agent
 * refuses or loses is classified as the load's failure and keeps the token.
 */
class SessionResumeMethodTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final ResumeHarness harness =
      ResumeHarness.withReplaceableWorker(db, UnaryOperator.identity());

  /** A session whose agent created its provider session and held two turns, then went away. */
  private String conversation(String sessionId) throws Exception {
    harness.newSession(sessionId, SessionState.CREATED);
    ResumeResult first = harness.resume(sessionId, ResumeMode.START_FRESH);
    harness.prompt(sessionId, "first question");
    harness.prompt(sessionId, "second question");
    harness.components().agentHost().stop(sessionId);
    assertThat(transcript(sessionId)).hasSize(4);
    return first.providerSessionId();
  }

  private List<String> transcript(String sessionId) {
    return harness.fixtures().strings(
        "SELECT role || ': ' || content FROM session_messages WHERE session_id = ? ORDER BY ordinal", sessionId);
  }

  /** The session method the latest resume's launch step reported in its result (in the history). */
  private String launchMethod(String sessionId) throws Exception {
    List<HistoryEvent> events = harness.history(sessionId).getEvents();
    for (HistoryEvent event : events) {
      if (event.hasActivityTaskCompletedEventAttributes()) {
        long scheduled = event.getActivityTaskCompletedEventAttributes().getScheduledEventId();
        HistoryEvent schedule = events.stream().filter(e -> e.getEventId() == scheduled).findFirst().orElseThrow();
        if (schedule.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("LaunchAgent")) {
          JsonNode result = Json.mapper().readTree(
              event.getActivityTaskCompletedEventAttributes().getResult().getPayloads(0).getData().toStringUtf8());
          return result.path("sessionMethod").asText();
        }
      }
    }
    throw new AssertionError("no completed LaunchAgent in the history of " + sessionId);
  }

  @Test
  void anAgentAdvertisingResumeIsResumedTheOthersLoadedTheSameSessionAndNoMessageTwice() throws Exception {
    String token = conversation("s1");
    List<String> before = transcript("s1");
    harness.agentMode("resume");

    ResumeResult resumed = harness.resume("s1", ResumeMode.RESUME);

    assertThat(resumed.outcome()).isEqualTo(ResumeOutcome.RESUMED);
    assertThat(resumed.loaded()).isTrue();
    assertThat(resumed.providerSessionId()).isEqualTo(token);
    assertThat(launchMethod("s1")).isEqualTo("session/resume");
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(transcript("s1")).isEqualTo(before);

    harness.prompt("s1", "third question");
    harness.components().agentHost().stop("s1");
    List<String> afterTurn = transcript("s1");
    assertThat(afterTurn).hasSize(6).startsWith(before.toArray(String[]::new));
    harness.agentMode("normal");

    ResumeResult loaded = harness.resume("s1", ResumeMode.RESUME);

    assertThat(loaded.outcome()).isEqualTo(ResumeOutcome.RESUMED);
    assertThat(loaded.providerSessionId()).isEqualTo(token);
    assertThat(launchMethod("s1")).isEqualTo("session/load");
    assertThat(transcript("s1")).as("the load's replay of all six messages added none").isEqualTo(afterTurn);
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"reject-resume, session/resume", "reject-load, session/load"})
  void aRefusedReattachIsARejectedLoadAndKeepsTheTokenAndTheTranscript(String mode, String method) throws Exception {
    String token = conversation("s1");
    List<String> before = transcript("s1");
    harness.agentMode(mode);

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.step()).isEqualTo(ResumeStep.LAUNCH_AGENT);
    assertThat(failure.failureType()).isEqualTo("AGENT_SESSION_LOAD_REJECTED");
    assertThat(failure.message()).contains("rejected " + method + " of stored session " + token);
    assertThat(failure.recoveryActions()).contains(ResumeMode.START_FRESH);
    harness.assertRecoverable("s1", WAITING_FOR_INPUT, token);
    assertThat(transcript("s1")).isEqualTo(before);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"close-before-resume, resume, session/resume", "close-before-load, normal, session/load"})
  void anAgentGoneBeforeItAnsweredKeepsTheTokenForALaterHealthyProcess(String mode, String healthy, String method)
      throws Exception {
    String token = conversation("s1");
    var moved = harness.db().tx(h -> harness.sessions().transition(h, "s1", Set.of(WAITING_FOR_INPUT), FAILED,
        "test setup", "agent process exited", Fence.none()));
    assertThat(moved.won()).isTrue();
    List<String> before = transcript("s1");
    harness.agentMode(mode);

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.failureType()).isEqualTo("AGENT_TRANSPORT_CLOSED");
    assertThat(failure.message()).contains("transport closed before " + method + " of " + token);
    assertThat(failure.recoveryActions()).containsExactly(ResumeMode.RESUME, ResumeMode.START_FRESH);
    harness.assertRecoverable("s1", FAILED, token);

    harness.agentMode(healthy);
    ResumeResult later = harness.resume("s1", ResumeMode.RESUME);

    assertThat(later.providerSessionId()).isEqualTo(token);
    assertThat(launchMethod("s1")).isEqualTo(method);
    assertThat(harness.identity("s1")).isEqualTo(new SessionIdentity(token, token));
    assertThat(transcript("s1")).isEqualTo(before);
  }

  @Test
  void aResumeNeverAnsweredTimesOutAsAClosedTransportAndKeepsTheToken() throws Exception {
    String token = conversation("s1");
    harness.agentMode("hold-resume");

    ResumeFailure failure = harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(failure.failureType()).isEqualTo("AGENT_TRANSPORT_CLOSED");
    assertThat(failure.message()).contains("session/resume of " + token + " was not answered within PT20S");
    harness.assertRecoverable("s1", WAITING_FOR_INPUT, token);
  }
}
