package dev.kandev.recovery.worker.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import io.temporal.api.history.v1.HistoryEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Resume latency against conversation length, {@code session/load} beside {@code session/resume},
 * from one run: the whole ResumeSessionWorkflow on the real dev server (PostgreSQL, the Node test
 * agent), for conversations of 10, 1,000 and 10,000 messages. The same session is resumed by the
 * same agent, which advertises {@code sessionCapabilities.resume} or not (its mode file), the two
 * ways alternating so that both see the same machine. Between two resumes the agent is stopped and
 * the session marked FAILED again, outside the timed call. It asserts what it measured: each resume
 * used the method it was meant to, kept the token, and left the transcript at its length.
 */
@Tag("benchmark")
public class ResumeMethodBenchmark {
  private static final int[] SIZES = {10, 1_000, 10_000};
  private static final int ROUNDS = Integer.getInteger("bench.methodRounds", 11);
  private static final String LOAD = "session/load";
  private static final String RESUME = "session/resume";

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final ResumeHarness harness =
      ResumeHarness.withReplaceableWorker(db, UnaryOperator.identity());
  private final ResumeBenchSessions sessions = new ResumeBenchSessions(db);

  @Test
  public void resumeLatencyByConversationLength() throws Exception {
    Map<Integer, Map<String, Latencies>> results = new LinkedHashMap<>();
    for (int size : SIZES) {
      String id = "conv-" + size;
      String token = conversation(id, size);
      Map<String, Latencies> byMethod = new LinkedHashMap<>();
      byMethod.put(LOAD, new Latencies());
      byMethod.put(RESUME, new Latencies());
      for (int round = 0; round < ROUNDS; round++) {
        for (String method : round % 2 == 0 ? List.of(LOAD, RESUME) : List.of(RESUME, LOAD)) {
          byMethod.get(method).add(timedResume(id, token, method, size));
        }
      }
      results.put(size, byMethod);
    }
    print(results);
  }

  /**
   * A FAILED session whose agent holds a conversation of {@code size} messages and whose transcript
   * holds the same (recorded by a first, untimed session/load); returns its token.
   */
  private String conversation(String id, int size) throws Exception {
    harness.newSession(id, SessionState.CREATED);
    ResumeResult first = harness.resume(id, ResumeMode.START_FRESH);
    sessions.reset(id, List.of(harness.components()));
    String token = first.providerSessionId();
    Path file = harness.agentState().resolve(token + ".json");
    ObjectNode stored = (ObjectNode) Json.mapper().readTree(file.toFile());
    ArrayNode messages = stored.putArray("messages");
    for (int i = 0; i < size; i++) {
      messages.addObject()
          .put("messageId", "msg_" + i)
          .put("role", i % 2 == 0 ? "user" : "agent")
          .put("text", (i % 2 == 0 ? "Question " : "Answer ") + i + ": " + "lorem ipsum dolor sit amet ".repeat(3));
    }
    Files.writeString(file, Json.mapper().writeValueAsString(stored));
    harness.agentMode("normal");
    harness.resume(id, ResumeMode.RESUME);
    sessions.reset(id, List.of(harness.components()));
    long recorded = transcriptLength(id);
    if (recorded != size) {
      throw new IllegalStateException(id + ": the first load recorded " + recorded + " messages, expected " + size);
    }
    return token;
  }

  /** One timed RESUME by {@code method}, then checks it and resets the session (untimed). */
  private long timedResume(String id, String token, String method, int size) throws Exception {
    harness.agentMode(method.equals(RESUME) ? "resume" : "normal");
    long begin = System.nanoTime();
    ResumeResult result = harness.resume(id, ResumeMode.RESUME);
    long nanos = System.nanoTime() - begin;
    if (result.outcome() != ResumeOutcome.RESUMED || !result.providerSessionId().equals(token)) {
      throw new IllegalStateException(id + ": expected RESUMED with " + token + ", got " + result);
    }
    String used = launchMethod(id);
    if (!used.equals(method)) {
      throw new IllegalStateException(id + ": expected " + method + ", the launch used " + used);
    }
    long length = transcriptLength(id);
    if (length != size) {
      throw new IllegalStateException(id + ": the transcript holds " + length + " messages after " + method
          + ", expected " + size);
    }
    sessions.reset(id, List.of(harness.components()));
    return nanos;
  }

  private long transcriptLength(String id) {
    return harness.fixtures().count("SELECT count(*) FROM session_messages WHERE session_id = ?", id);
  }

  private String launchMethod(String id) throws Exception {
    List<HistoryEvent> events = harness.history(id).getEvents();
    for (HistoryEvent event : events) {
      if (event.hasActivityTaskCompletedEventAttributes()) {
        long scheduled = event.getActivityTaskCompletedEventAttributes().getScheduledEventId();
        HistoryEvent schedule = events.stream().filter(e -> e.getEventId() == scheduled).findFirst().orElseThrow();
        if (schedule.getActivityTaskScheduledEventAttributes().getActivityType().getName().equals("LaunchAgent")) {
          return Json.mapper().readTree(event.getActivityTaskCompletedEventAttributes().getResult().getPayloads(0)
              .getData().toStringUtf8()).path("sessionMethod").asText();
        }
      }
    }
    throw new IllegalStateException("no completed LaunchAgent in the history of " + id);
  }

  private void print(Map<Integer, Map<String, Latencies>> results) {
    System.out.println();
    System.out.println("### RESUME latency by conversation length, ResumeSessionWorkflow on the dev server"
        + " (start to result, client side; " + ROUNDS + " resumes per cell)");
    System.out.println(Machine.describe(db.dataSource()));
    System.out.println();
    System.out.println("| messages | session/load median ms | p90 ms | session/resume median ms | p90 ms | load / resume (median) |");
    System.out.println("|---:|---:|---:|---:|---:|---:|");
    results.forEach((size, byMethod) -> {
      Latencies load = byMethod.get(LOAD);
      Latencies resume = byMethod.get(RESUME);
      System.out.println(String.format(Locale.ROOT, "| %,d | %.1f | %.1f | %.1f | %.1f | %.2f× |", size,
          load.medianMillis(), load.percentileMillis(0.90), resume.medianMillis(), resume.percentileMillis(0.90),
          load.medianMillis() / resume.medianMillis()));
    });
    System.out.println();
  }
}
