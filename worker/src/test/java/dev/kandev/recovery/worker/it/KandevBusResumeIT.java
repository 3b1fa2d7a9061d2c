package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.events.KandevTime;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.NatsServer;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.model.SessionState;
import io.nats.client.Message;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Resumes of the packaged jar's {@code dev} on Kandev's own tables (the kandev layout) with Kandev's
 * bus on a real nats-server: a Start fresh, a resume of a FAILED session with its token and a failed
 * resume (its restore) arrive, subscribed to {@code >} as Kandev's WebSocket broadcaster is, as
 * Kandev's events — its envelope, the payload keys of its publishers with their JSON types
 * (kandev-postgres.md §9.1, §9.2), in the order of the transitions, each once; a resume's events
 * committed while the bus was down arrive, in order, after its worker was SIGKILLed, once the next
 * worker runs. Without KANDEV_NATS_URL the same resumes store no event at all; with
 * KANDEV_BUS_RELAY=kandev they are stored for Kandev's own relay and the worker publishes none.
 */
public class KandevBusResumeIT {
  /** Go's {@code time.RFC3339Nano} in UTC, which {@code bus.Event.Timestamp} (a {@code time.Time}) accepts. */
  private static final Pattern RFC3339_UTC = Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z");
  private static final Duration ARRIVAL = Duration.ofSeconds(60);

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster(StoreLayout.Kind.KANDEV);

  private KandevProcess.Result cli(String... args) {
    return KandevProcess.run(cluster.cliEnvironment(), cluster.logDir(), Duration.ofMinutes(2), args);
  }

  @Test
  void eachResumesTransitionsArriveOnKandevsNatsBusAsKandevsEventsInOrder() throws Exception {
    try (NatsServer nats = NatsServer.start(); NatsServer.Subscriber kandev = nats.subscribe()) {
      cluster.setting("KANDEV_NATS_URL", nats.url());
      KandevProcess dev = cluster.dev("dev");
      assertThat(dev.output()).contains("Kandev bus   nats://127.0.0.1:" + nats.port());
      kandevTaskInProgress("s1");

      // Start fresh of a session never launched: STARTING, then settled with the task in Turn Finished.
      assertResumed(cli("resume", "s1", "--fresh", "--timeout=90s"));
      List<JsonNode> fresh = events(kandev.next(4, ARRIVAL));
      assertSettled(fresh, "s1", "CREATED");
      String token = cluster.identity("s1").acpSessionId();
      assertThat(fresh.get(1).at("/data/session_metadata/acp/session_id").asText()).isEqualTo(token);
      assertThat(Instant.parse(fresh.get(0).at("/data/updated_at").asText()))
          .as("the UI drops a session event older than what it shows").isBeforeOrEqualTo(fresh.get(1).at("/data/updated_at").asText());

      // Kandev's own writes (it publishes its own events for them): the agent failed, the task is in progress again.
      kandevFails("s1");
      assertResumed(cli("resume", "s1", "--timeout=90s"));
      List<JsonNode> resumed = events(kandev.next(4, ARRIVAL));
      assertSettled(resumed, "s1", "FAILED");
      assertThat(resumed.get(1).at("/data/session_metadata/acp/session_id").asText()).as("the token kept").isEqualTo(token);
      assertThat(resumed.get(1).at("/data/updated_at").asText())
          .isEqualTo(rfc3339(cluster.fixtures.string("SELECT updated_at::text FROM task_sessions WHERE id = 's1'")));

      // A resume whose agent exits before initialize: STARTING, then restored to FAILED; the task stays.
      kandevTaskInProgress("s2");
      cluster.fixtures.exec("UPDATE task_sessions SET state = 'FAILED', error_message = 'agent process exited' WHERE id = 's2'");
      cluster.fixtures.storedToken("s2", "token-of-s2");
      cluster.agentMode("exit-before-initialize");
      KandevProcess.Result failed = cli("resume", "s2", "--timeout=90s");
      assertThat(failed.exitCode()).as(failed.output()).isEqualTo(ExitCodes.FAILED);
      List<JsonNode> restored = events(kandev.next(2, ARRIVAL));
      assertSessionEvent(restored.get(0), "s2", "FAILED", "STARTING");
      assertSessionEvent(restored.get(1), "s2", "STARTING", "FAILED");
      assertThat(restored.get(1).at("/data/session_metadata/acp/session_id").asText()).isEqualTo("token-of-s2");
      assertThat(cluster.state("s2")).isEqualTo(SessionState.FAILED);

      Await.until(() -> unpublished() == 0, Duration.ofSeconds(30), "every stored event to be marked published");
      assertThat(kandev.more(Duration.ofSeconds(2))).as("nothing else, nothing twice").isEmpty();
      List<String> ids = new ArrayList<>();
      for (List<JsonNode> batch : List.of(fresh, resumed, restored)) {
        batch.forEach(e -> ids.add(e.get("id").asText()));
      }
      assertThat(ids).doesNotHaveDuplicates().containsExactlyElementsOf(cluster.fixtures.strings(
          "SELECT event_id::text FROM kandev_event_outbox ORDER BY seq"));
    }
  }

  /**
   * A session/load that replays two messages the transcript lacks: its turn and messages arrive as
   * Kandev's own turn.started, message.added (in order) and turn.completed, between the session's
   * STARTING and its settle, so an open chat shows them live.
   */
  @Test
  void aReplaysTurnAndMessagesArriveAsKandevsEventsBetweenTheStateEvents() throws Exception {
    try (NatsServer nats = NatsServer.start(); NatsServer.Subscriber kandev = nats.subscribe()) {
      cluster.setting("KANDEV_NATS_URL", nats.url());
      cluster.dev("dev");
      kandevTaskInProgress("s1");
      assertResumed(cli("resume", "s1", "--fresh", "--timeout=90s"));
      kandev.next(4, ARRIVAL);
      String token = cluster.identity("s1").acpSessionId();
      // The agent's own record of the conversation holds two messages Kandev's transcript lacks.
      java.nio.file.Path record = cluster.dir().resolve("agent-state").resolve(token + ".json");
      com.fasterxml.jackson.databind.node.ObjectNode stored =
          (com.fasterxml.jackson.databind.node.ObjectNode) Json.mapper().readTree(record.toFile());
      com.fasterxml.jackson.databind.node.ArrayNode messages = stored.putArray("messages");
      messages.addObject().put("messageId", "m-1").put("role", "user").put("text", "add a widget");
      messages.addObject().put("messageId", "m-2").put("role", "agent").put("text", "done");
      java.nio.file.Files.writeString(record, Json.mapper().writeValueAsString(stored));
      kandevFails("s1");

      assertResumed(cli("resume", "s1", "--timeout=90s"));
      List<JsonNode> events = events(kandev.next(8, ARRIVAL));
      assertThat(events).extracting(e -> e.get("type").asText()).containsExactly(
          "task_session.state_changed", "turn.started", "message.added", "message.added", "turn.completed",
          "task_session.state_changed", "task.state_changed", "task.updated");
      String turn = cluster.fixtures.string("SELECT id FROM task_session_turns WHERE task_session_id = 's1'");
      assertThat(events.get(1).at("/data/id").asText()).isEqualTo(turn);
      assertThat(events.get(1).at("/data/session_id").asText()).isEqualTo("s1");
      assertThat(events.get(2).at("/data/turn_id").asText()).isEqualTo(turn);
      assertThat(events.get(2).at("/data/author_type").asText()).isEqualTo("user");
      assertThat(events.get(2).at("/data/content").asText()).isEqualTo("add a widget");
      assertThat(events.get(2).at("/data/created_at").asText()).matches(RFC3339_UTC);
      assertThat(events.get(3).at("/data/author_type").asText()).isEqualTo("agent");
      assertThat(events.get(3).at("/data/content").asText()).isEqualTo("done");
      assertThat(events.get(4).at("/data/had_output").asBoolean()).isTrue();
      assertThat(kandev.more(Duration.ofSeconds(2))).as("nothing else, nothing twice").isEmpty();
    }
  }

  @Test
  void aResumesEventsCommittedBeforeItsWorkerWasKilledArriveOnceTheNextWorkerRuns() throws Exception {
    DevTemporalServer.start(RealTemporalServer.cli(), cluster.dir().resolve("temporal"), cluster.temporalPort, cluster.uiPort);
    int port = NatsServer.freePort();
    cluster.setting("KANDEV_NATS_URL", "nats://127.0.0.1:" + port); // no server there yet
    KandevProcess first = cluster.worker("worker-a");
    kandevTaskInProgress("s1");

    assertResumed(cli("resume", "s1", "--fresh", "--timeout=90s"));
    first.awaitOutput("cannot publish Kandev's bus events (Kandev's NATS bus at nats://127.0.0.1:" + port, ARRIVAL);
    List<String> stored = cluster.fixtures.strings("SELECT event_id::text FROM kandev_event_outbox ORDER BY seq");
    assertThat(stored).hasSize(4);
    first.signal("KILL");
    first.awaitExit(Duration.ofSeconds(30));
    assertThat(unpublished()).as("committed with the transitions, never published").isEqualTo(4);

    try (NatsServer nats = NatsServer.start(port, null, null); NatsServer.Subscriber kandev = nats.subscribe()) {
      cluster.worker("worker-b");
      List<JsonNode> arrived = events(kandev.next(4, ARRIVAL));
      assertThat(arrived).extracting(e -> e.get("id").asText()).as("the stored events, first, in order")
          .containsExactlyElementsOf(stored);
      assertSettled(arrived, "s1", "CREATED");
      Await.until(() -> unpublished() == 0, Duration.ofSeconds(30), "every stored event to be marked published");
    }
  }

  @Test
  void withoutKandevNatsUrlTheSameResumesStoreNoEvent() throws Exception {
    KandevProcess dev = cluster.dev("dev");
    assertThat(dev.output()).contains("Kandev bus   none (KANDEV_NATS_URL unset)");
    kandevTaskInProgress("s1");

    assertResumed(cli("resume", "s1", "--fresh", "--timeout=90s"));
    kandevFails("s1");
    assertResumed(cli("resume", "s1", "--timeout=90s"));

    assertThat(cluster.fixtures.string("SELECT s.state || '/' || t.state FROM task_sessions s JOIN tasks t ON t.id = s.task_id"
        + " WHERE s.id = 's1'")).isEqualTo("WAITING_FOR_INPUT/REVIEW");
    assertThat(cluster.transitions("s1")).as("our own session_events as ever")
        .containsExactly("CREATED>STARTING", "STARTING>WAITING_FOR_INPUT", "FAILED>STARTING", "STARTING>WAITING_FOR_INPUT");
    assertThat(cluster.fixtures.count("SELECT count(*) FROM kandev_event_outbox")).as("nothing piles up").isZero();
  }

  /**
   * KANDEV_BUS_RELAY=kandev: Kandev's process publishes the outbox (kandevbridge's relay, on its
   * in-process bus or its NATS bus), so the worker stores the events even without KANDEV_NATS_URL
   * and, with it set, publishes none itself: one relay publishes.
   */
  @Test
  void withKandevsOwnRelayTheEventsAreStoredForItAndTheWorkerPublishesNone() throws Exception {
    try (NatsServer nats = NatsServer.start(); NatsServer.Subscriber kandev = nats.subscribe()) {
      cluster.setting("KANDEV_BUS_RELAY", "kandev");
      cluster.setting("KANDEV_NATS_URL", nats.url());
      KandevProcess dev = cluster.dev("dev");
      assertThat(dev.output()).contains("Kandev bus   relayed by Kandev's process (KANDEV_BUS_RELAY=kandev)");
      kandevTaskInProgress("s1");

      assertResumed(cli("resume", "s1", "--fresh", "--timeout=90s"));

      assertThat(cluster.fixtures.strings("SELECT subject FROM kandev_event_outbox WHERE published_at IS NULL ORDER BY seq"))
          .as("stored, waiting for Kandev's relay").containsExactly("task_session.state_changed",
              "task_session.state_changed", "task.state_changed", "task.updated");
      assertThat(kandev.more(Duration.ofSeconds(3))).as("the worker published nothing").isEmpty();
      assertThat(unpublished()).isEqualTo(4);
    }
  }

  /** Task {@code t-<session>} in progress with {@code session} as its primary session, never launched, as Kandev creates them. */
  private void kandevTaskInProgress(String sessionId) {
    cluster.fixtures.task(RecoveryCluster.taskOf(sessionId), RecoveryCluster.WORKSPACE, "IN_PROGRESS")
        .session(sessionId, RecoveryCluster.taskOf(sessionId), TestAgent.AGENT_ID, SessionState.CREATED, "{}");
  }

  /**
   * Kandev's own writes when the agent of a settled session dies: the session FAILED by its
   * compare-and-set ({@code UpdateTaskSessionStateIfCurrent}), the task back in progress; then the
   * worker stops the agent it still runs.
   */
  private void kandevFails(String sessionId) {
    cluster.fixtures.exec("UPDATE task_sessions SET state = 'FAILED', error_message = 'agent process exited',"
        + " completed_at = now() AT TIME ZONE 'UTC', updated_at = now() AT TIME ZONE 'UTC'"
        + " WHERE id = ? AND state = 'WAITING_FOR_INPUT'", sessionId);
    cluster.fixtures.exec("UPDATE tasks SET state = 'IN_PROGRESS', updated_at = now() AT TIME ZONE 'UTC' WHERE id = ?",
        RecoveryCluster.taskOf(sessionId));
    Await.until(() -> cluster.executor(sessionId).map(e -> !TestStores.claimsLiveProcess(e)).orElse(false),
        Duration.ofSeconds(30), "the worker to stop the agent of the failed session");
  }

  private static void assertResumed(KandevProcess.Result resume) {
    assertThat(resume.exitCode()).as(resume.output()).isEqualTo(ExitCodes.OK);
  }

  /** Each message as Kandev's subscriber decodes it into {@code bus.Event}, with its envelope checked. */
  private static List<JsonNode> events(List<Message> messages) throws IOException {
    List<JsonNode> events = new ArrayList<>();
    for (Message message : messages) {
      JsonNode event = Json.mapper().readTree(new String(message.getData(), StandardCharsets.UTF_8));
      assertThat(event.get("id").isTextual()).as("id: %s", event).isTrue();
      UUID.fromString(event.get("id").asText());
      assertThat(event.get("type").asText()).as("type is the subject").isEqualTo(message.getSubject());
      assertThat(event.get("subject").asText()).isEqualTo(message.getSubject());
      assertThat(event.get("source").asText()).isEqualTo("kandev-recovery");
      assertThat(event.get("timestamp").asText()).matches(RFC3339_UTC);
      assertThat(event.get("data").isObject()).as("data: %s", event).isTrue();
      assertThat(message.getSubject()).doesNotStartWith("orchestrator.");
      events.add(event);
    }
    return events;
  }

  /** {@code task_session.state_changed} with every key Kandev always sends, in its JSON type (§9.2). */
  /** The four events of a resume from {@code from} that settled: the session to STARTING, then waiting, the task to REVIEW. */
  private void assertSettled(List<JsonNode> events, String sessionId, String from) {
    assertThat(events).extracting(e -> e.get("type").asText()).containsExactly(
        "task_session.state_changed", "task_session.state_changed", "task.state_changed", "task.updated");
    assertSessionEvent(events.get(0), sessionId, from, "STARTING");
    assertSessionEvent(events.get(1), sessionId, "STARTING", "WAITING_FOR_INPUT");
    assertTaskEvent(events.get(2), sessionId, "IN_PROGRESS");
    assertTaskEvent(events.get(3), sessionId, null);
  }

  private void assertSessionEvent(JsonNode event, String sessionId, String oldState, String newState) {
    assertThat(event.get("type").asText()).isEqualTo("task_session.state_changed");
    JsonNode data = event.get("data");
    assertThat(data.get("task_id").asText()).isEqualTo(RecoveryCluster.taskOf(sessionId));
    assertThat(data.get("session_id").asText()).isEqualTo(sessionId);
    assertThat(data.get("old_state").asText()).isEqualTo(oldState);
    assertThat(data.get("new_state").asText()).isEqualTo(newState);
    assertThat(data.get("agent_profile_id").asText()).isEqualTo(TestAgent.AGENT_ID);
    textual(data, "task_id", "session_id", "old_state", "new_state", "error_message", "agent_profile_id",
        "execution_profile_id", "name", "route_state", "route_reason", "route_error_code", "route_error_class",
        "route_catalogue_version", "route_pending_outcome", "downstream_acp_session_id");
    integral(data, "route_generation", "route_retry_ordinal", "active_subagent_count");
    bool(data, "is_passthrough", "is_primary", "supports_steering");
    assertThat(data.get("is_primary").asBoolean()).isTrue();
    assertThat(type(data.get("agent_profile_snapshot"))).as("agent_profile_snapshot: object or null").isIn("object", "null");
    assertThat(type(data.get("route_deadline"))).as("route_deadline: RFC 3339 or null").isIn("string", "null");
    if (data.get("route_deadline").isTextual()) {
      assertThat(data.get("route_deadline").asText()).matches(RFC3339_UTC);
    }
    assertThat(data.has("foreground_activity") && data.get("foreground_activity").isNull())
        .as("foreground_activity explicitly null: %s", data).isTrue();
    assertThat(data.get("active_subagent_count").asInt()).isZero();
    assertThat(data.get("updated_at").asText()).matches(RFC3339_UTC);
    assertThat(data.get("session_metadata").isObject()).as("session_metadata: %s", data).isTrue();
  }

  /** {@code task.state_changed} (from {@code oldState}) or {@code task.updated} (null) with Kandev's full field set (§9.2). */
  private void assertTaskEvent(JsonNode event, String sessionId, String oldState) {
    JsonNode data = event.get("data");
    assertThat(data.get("task_id").asText()).isEqualTo(RecoveryCluster.taskOf(sessionId));
    assertThat(data.get("workspace_id").asText()).isEqualTo(RecoveryCluster.WORKSPACE);
    assertThat(data.get("title").asText()).isEqualTo("test task");
    assertThat(data.get("state").asText()).as("Turn Finished").isEqualTo("REVIEW");
    textual(data, "task_id", "workspace_id", "workflow_id", "workflow_step_id", "title", "description", "state",
        "priority", "origin", "created_at", "updated_at", "queued_for_step_id");
    integral(data, "position", "session_count");
    bool(data, "wip_admitted", "is_ephemeral", "autopilot", "auto_start_failed");
    assertThat(data.get("created_at").asText()).matches(RFC3339_UTC);
    assertThat(data.get("updated_at").asText()).matches(RFC3339_UTC);
    assertThat(data.has("queued_at") && data.get("queued_at").isNull()).as("queued_at null when unset").isTrue();
    assertThat(data.has("archived_at") && data.get("archived_at").isNull()).as("archived_at null when unset").isTrue();
    assertThat(data.get("session_count").asInt()).isEqualTo(1);
    assertThat(data.get("primary_session_id").asText()).isEqualTo(sessionId);
    assertThat(data.get("primary_session_state").asText()).isEqualTo("WAITING_FOR_INPUT");
    if (oldState == null) {
      assertThat(event.get("type").asText()).isEqualTo("task.updated");
      assertThat(data.has("old_state") || data.has("new_state")).as("task.updated has no old_state/new_state").isFalse();
    } else {
      assertThat(event.get("type").asText()).isEqualTo("task.state_changed");
      assertThat(data.get("old_state").asText()).isEqualTo(oldState);
      assertThat(data.get("new_state").asText()).isEqualTo("REVIEW");
    }
  }

  private static void textual(JsonNode data, String... keys) {
    for (String key : keys) {
      assertThat(type(data.get(key))).as("%s in %s", key, data).isEqualTo("string");
    }
  }

  private static void integral(JsonNode data, String... keys) {
    for (String key : keys) {
      assertThat(type(data.get(key))).as("%s in %s", key, data).isEqualTo("integer");
    }
  }

  private static void bool(JsonNode data, String... keys) {
    for (String key : keys) {
      assertThat(type(data.get(key))).as("%s in %s", key, data).isEqualTo("boolean");
    }
  }

  /** The JSON type of {@code node} as Go's decoder sees it ({@code integer} for a number without fraction); {@code absent} if missing. */
  private static String type(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "absent";
    }
    if (node.isIntegralNumber()) {
      return "integer";
    }
    return node.getNodeType().name().toLowerCase(Locale.ROOT);
  }

  /** A naive UTC {@code timestamp} of Kandev's as Go's RFC3339Nano writes it. */
  private static String rfc3339(String postgresTimestamp) {
    Instant at = LocalDateTime.parse(postgresTimestamp.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
    return KandevTime.rfc3339Nano(at);
  }

  private long unpublished() {
    return cluster.fixtures.count("SELECT count(*) FROM kandev_event_outbox WHERE published_at IS NULL");
  }
}
