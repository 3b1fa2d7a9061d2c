package dev.kandev.recovery.worker.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.kandev.KandevEventColumns;
import dev.kandev.recovery.activities.store.kandev.OutboxKandevEvents;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.NatsServer;
import io.nats.client.Message;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The relay against a real nats-server: what a transition stored arrives as Kandev's events, in order, at least once. */
class KandevBusRelayTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final KandevEventColumns kandev = new KandevEventColumns(db);

  private static final ObjectMapper JSON = Json.mapper();
  private static final Duration WAIT = Duration.ofSeconds(20);

  private OutboxKandevEvents events() {
    return new OutboxKandevEvents(kandev.schema(), JSON, Clock.systemUTC());
  }

  private void taskWithSession() {
    db.fixtures().exec("INSERT INTO " + kandev.table("tasks") + " (id, title, workspace_id, workflow_step_id, state,"
        + " created_at, updated_at) VALUES ('t-1', 'Fix the build', 'ws-1', 'step-1', 'IN_PROGRESS',"
        + " '2026-12-01 10:00:00', '2026-12-04 15:00:00')");
    db.fixtures().exec("INSERT INTO " + kandev.table("task_sessions") + " (id, task_id, state, is_primary, started_at,"
        + " updated_at) VALUES ('s-1', 't-1', 'FAILED', 1, '2026-12-04 15:00:00', '2026-12-04 15:00:00')");
  }

  /** The transitions of a resume as the kandev layout makes them: STARTING, then settled, task to REVIEW. */
  private void resumeTransitions() {
    db.run((Handle h) -> {
      h.execute("UPDATE " + kandev.table("task_sessions") + " SET state = 'STARTING' WHERE id = 's-1'");
      events().sessionStateChanged(h, "s-1", "FAILED");
    });
    db.run((Handle h) -> {
      h.execute("UPDATE " + kandev.table("task_sessions") + " SET state = 'WAITING_FOR_INPUT' WHERE id = 's-1'");
      events().sessionStateChanged(h, "s-1", "STARTING");
      h.execute("UPDATE " + kandev.table("tasks") + " SET state = 'REVIEW' WHERE id = 't-1'");
      events().taskStateChanged(h, "t-1", "IN_PROGRESS");
    });
  }

  /** A task with its session, and a resume's transitions of it stored with their events. */
  private void storedResume() {
    taskWithSession();
    resumeTransitions();
  }

  private KandevBusRelay relayTo(String natsUrl) {
    return new KandevBusRelay(new KandevBusSettings(natsUrl, "kandev-recovery"), db.transactions());
  }

  private static JsonNode envelope(Message message) throws Exception {
    return JSON.readTree(new String(message.getData(), StandardCharsets.UTF_8));
  }

  @Test
  void storedTransitionsArriveOnTheBusAsKandevsEventsInOrder() throws Exception {
    storedResume();
    try (NatsServer nats = NatsServer.start();
        NatsServer.Subscriber kandevProcess = nats.subscribe();
        KandevBusRelay relay = relayTo(nats.url())) {

      assertThat(relay.relayOnce()).isEqualTo(4);

      List<Message> messages = kandevProcess.next(4, WAIT);
      assertThat(messages).extracting(Message::getSubject).containsExactly("task_session.state_changed",
          "task_session.state_changed", "task.state_changed", "task.updated");
      for (Message message : messages) {
        JsonNode e = envelope(message);
        assertThat(e.get("type").asText()).isEqualTo(message.getSubject());
        assertThat(e.get("subject").asText()).isEqualTo(message.getSubject());
        assertThat(e.get("source").asText()).isEqualTo("kandev-recovery");
        assertThat(e.get("id").isTextual()).isTrue();
        assertThat(e.get("timestamp").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");
        assertThat(message.getReplyTo()).as("a plain publish, no request").isNull();
      }
      JsonNode starting = envelope(messages.get(0)).get("data");
      assertThat(starting.get("old_state").asText()).isEqualTo("FAILED");
      assertThat(starting.get("new_state").asText()).isEqualTo("STARTING");
      JsonNode settled = envelope(messages.get(1)).get("data");
      assertThat(settled.get("old_state").asText()).isEqualTo("STARTING");
      assertThat(settled.get("new_state").asText()).isEqualTo("WAITING_FOR_INPUT");
      assertThat(settled.has("foreground_activity") && settled.get("foreground_activity").isNull()).isTrue();
      assertThat(settled.get("active_subagent_count").asInt()).isZero();
      JsonNode task = envelope(messages.get(2)).get("data");
      assertThat(task.get("new_state").asText()).isEqualTo("REVIEW");
      assertThat(task.get("primary_session_state").asText()).isEqualTo("WAITING_FOR_INPUT");
      assertThat(task.get("title").asText()).isEqualTo("Fix the build");

      assertThat(relay.unpublished()).isZero();
      assertThat(relay.relayOnce()).as("nothing is published twice when all went well").isZero();
      assertThat(kandevProcess.more(Duration.ofMillis(300))).isEmpty();
    }
  }

  @Test
  void eventsStoredWhileTheBusIsDownArriveOnceItIsUp() throws Exception {
    taskWithSession();
    int port = NatsServer.freePort();
    try (KandevBusRelay relay = relayTo("nats://127.0.0.1:" + port)) {
      resumeTransitions();
      assertThat(relay.relayOnce()).as("no server yet").isZero();
      assertThat(relay.unpublished()).isEqualTo(4);

      try (NatsServer nats = NatsServer.start(port, null, null);
          NatsServer.Subscriber kandevProcess = nats.subscribe()) {
        assertThat(relay.relayOnce()).isEqualTo(4);
        assertThat(kandevProcess.next(4, WAIT)).extracting(Message::getSubject).containsExactly(
            "task_session.state_changed", "task_session.state_changed", "task.state_changed", "task.updated");
      }
    }
  }

  @Test
  void aRelayThatFailsAfterPublishingPublishesTheSameEventsAgainWithTheSameIds() throws Exception {
    storedResume();
    try (NatsServer nats = NatsServer.start();
        NatsServer.Subscriber kandevProcess = nats.subscribe();
        KandevBusRelay relay = relayTo(nats.url());
        Connection blocker = db.dataSource().getConnection()) {
      // Someone holds the outbox rows: the relay publishes, flushes, then cannot mark them (lock timeout).
      blocker.setAutoCommit(false);
      try (Statement lock = blocker.createStatement()) {
        lock.execute("SELECT seq FROM kandev_event_outbox FOR UPDATE");
      }
      assertThat(relay.relayOnce()).as("published, but not marked published").isZero();
      List<Message> first = kandevProcess.next(4, WAIT);
      assertThat(relay.unpublished()).isEqualTo(4);
      blocker.rollback();

      assertThat(relay.relayOnce()).isEqualTo(4);
      List<Message> again = kandevProcess.next(4, WAIT);
      assertThat(ids(again)).as("republished, recognisable by id").containsExactlyElementsOf(ids(first));
      assertThat(relay.unpublished()).isZero();
    }
  }

  @Test
  void aServerThatWantsCredentialsGetsThemFromTheUrlWhichIsNeverShown() throws Exception {
    storedResume();
    try (NatsServer nats = NatsServer.start(NatsServer.freePort(), "kandev", "s3cret-pass");
        NatsServer.Subscriber kandevProcess = nats.subscribe();
        KandevBusRelay relay = relayTo(nats.url())) {
      KandevBusSettings settings = new KandevBusSettings(nats.url(), "kandev-recovery");
      assertThat(settings.display()).isEqualTo("nats://127.0.0.1:" + nats.port()).doesNotContain("s3cret");
      assertThat(settings.toString()).doesNotContain("s3cret");

      assertThat(relay.relayOnce()).isEqualTo(4);
      assertThat(kandevProcess.next(4, WAIT)).hasSize(4);
    }
  }

  @Test
  void publishedEventsArePrunedAfterADay() throws Exception {
    storedResume();
    try (NatsServer nats = NatsServer.start();
        KandevBusRelay relay = relayTo(nats.url())) {
      assertThat(relay.relayOnce()).isEqualTo(4);
      db.fixtures().exec("UPDATE kandev_event_outbox SET published_at = now() - interval '25 hours'"
          + " WHERE seq = (SELECT min(seq) FROM kandev_event_outbox)");

      assertThat(relay.prunePublished()).isEqualTo(1);
      assertThat(db.fixtures().count("SELECT count(*) FROM kandev_event_outbox")).isEqualTo(3);
    }
  }

  @Test
  void anEventLargerThanTheServerTakesIsPassedOverAndTheOthersFlow() throws Exception {
    taskWithSession();
    db.fixtures().exec("UPDATE " + kandev.table("task_sessions") + " SET metadata = ? WHERE id = 's-1'",
        "{\"workflow_data\":\"" + "x".repeat(4096) + "\"}");
    resumeTransitions();
    try (NatsServer nats = NatsServer.startWithMaxPayload(4096);
        NatsServer.Subscriber kandevProcess = nats.subscribe();
        KandevBusRelay relay = relayTo(nats.url())) {

      relay.relayOnce();

      assertThat(kandevProcess.next(2, WAIT)).extracting(Message::getSubject)
          .containsExactly("task.state_changed", "task.updated");
      assertThat(relay.unpublished()).isZero();
      assertThat(kandevProcess.more(Duration.ofMillis(300))).isEmpty();
    }
  }

  private static List<String> ids(List<Message> messages) throws Exception {
    List<String> ids = new java.util.ArrayList<>();
    for (Message message : messages) {
      ids.add(envelope(message).get("id").asText());
    }
    return ids;
  }

}
