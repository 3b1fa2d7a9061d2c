package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.KandevOutboxStore;
import dev.kandev.recovery.activities.store.KandevOutboxStore.PendingEvent;
import dev.kandev.recovery.activities.store.kandev.OutboxKandevEvents;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.NatsServer;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import io.nats.client.Message;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The packaged worker relays the outbox to a real nats-server: events committed while the worker
 * could not publish (its bus down) and then SIGKILLed still arrive — each at least once, in order,
 * recognisable by id — once the bus is up and a worker runs again; a worker SIGKILLed after it
 * published and before it marked the events published has the next worker publish the same ids
 * again. The URL's password never shows.
 */
public class KandevBusRelayIT {
  private static final String PASSWORD = "bus-pa55word";
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();
  private String kandevSchema;

  @BeforeEach
  void setUp() throws IOException {
    DevTemporalServer.start(RealTemporalServer.cli(), cluster.dir().resolve("temporal"), cluster.temporalPort, cluster.uiPort);
    kandevSchema = "kb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    String ddl;
    try (InputStream in = KandevBusRelayIT.class.getResourceAsStream("/kandev-bus/kandev-event-columns.sql")) {
      ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    cluster.tx((Handle h) -> {
      h.execute("CREATE SCHEMA " + kandevSchema);
      h.execute("SET LOCAL search_path TO " + kandevSchema);
      h.createScript(ddl).execute();
      h.execute("INSERT INTO tasks (id, title, workspace_id, workflow_step_id, state, created_at, updated_at)"
          + " VALUES ('t-1', 'Fix the build', 'ws-1', 'step-1', 'IN_PROGRESS', '2026-12-01 10:00:00', '2026-12-04 15:00:00')");
      h.execute("INSERT INTO task_sessions (id, task_id, state, is_primary, started_at, updated_at)"
          + " VALUES ('s-1', 't-1', 'FAILED', 1, '2026-12-04 15:00:00', '2026-12-04 15:00:00')");
      return null;
    });
  }

  @AfterEach
  void dropKandevSchema() {
    cluster.tx((Handle h) -> h.execute("DROP SCHEMA IF EXISTS " + kandevSchema + " CASCADE"));
  }

  @Test
  void eventsCommittedBeforeAWorkerWasKilledArriveOnceTheBusIsUpEachAtLeastOnceInOrder() throws Exception {
    int port = NatsServer.freePort();
    Map<String, String> bus = Map.of("KANDEV_NATS_URL", "nats://kandev:" + PASSWORD + "@127.0.0.1:" + port);
    KandevProcess first = cluster.worker("worker-a", bus);
    assertThat(first.output()).contains("Kandev bus   nats://127.0.0.1:" + port + " as kandev-recovery");

    List<UUID> stored = commitResumeTransitions();
    first.awaitOutput("cannot publish Kandev's bus events (Kandev's NATS bus at nats://127.0.0.1:" + port + ":", Duration.ofSeconds(60));
    first.signal("KILL");
    first.awaitExit(Duration.ofSeconds(30));
    assertThat(unpublished()).as("committed, not published").isEqualTo(4);

    try (NatsServer nats = NatsServer.start(port, "kandev", PASSWORD);
        NatsServer.Subscriber kandevProcess = nats.subscribe()) {
      KandevProcess second = cluster.worker("worker-b", bus);

      List<Message> arrived = kandevProcess.next(4, Duration.ofSeconds(60));
      Await.until(() -> unpublished() == 0, Duration.ofSeconds(30), "the outbox to be marked published");
      arrived.addAll(kandevProcess.more(Duration.ofSeconds(2)));

      List<UUID> ids = new ArrayList<>();
      for (Message message : arrived) {
        JsonNode envelope = Json.mapper().readTree(new String(message.getData(), StandardCharsets.UTF_8));
        assertThat(envelope.get("type").asText()).isEqualTo(message.getSubject());
        assertThat(envelope.get("source").asText()).isEqualTo("kandev-recovery");
        assertThat(envelope.get("data").get("task_id").asText()).isEqualTo("t-1");
        ids.add(UUID.fromString(envelope.get("id").asText()));
      }
      assertThat(new ArrayList<>(new LinkedHashSet<>(ids))).as("each stored event, in the order stored")
          .containsExactlyElementsOf(stored);
      assertThat(arrived.subList(0, 4)).extracting(Message::getSubject).containsExactly(
          "task_session.state_changed", "task_session.state_changed", "task.state_changed", "task.updated");
      assertThat(first.output() + second.output()).doesNotContain(PASSWORD);
    }
  }

  @Test
  void aWorkerKilledAfterPublishingAndBeforeMarkingHasTheNextOnePublishTheSameIdsAgain() throws Exception {
    List<UUID> stored = commitResumeTransitions();
    try (NatsServer nats = NatsServer.start();
        NatsServer.Subscriber kandevProcess = nats.subscribe();
        Connection holder = DriverManager.getConnection(TestDatabase.URL, TestDatabase.USER, "")) {
      // The outbox rows held by another transaction: the relay publishes and flushes, then waits to mark them.
      holder.setAutoCommit(false);
      try (Statement lock = holder.createStatement()) {
        lock.execute("SELECT seq FROM " + cluster.schema() + ".kandev_event_outbox FOR UPDATE");
      }
      Map<String, String> bus = Map.of("KANDEV_NATS_URL", nats.url());
      KandevProcess first = cluster.worker("worker-a", bus);
      List<UUID> before = ids(kandevProcess.next(4, Duration.ofSeconds(60)));
      first.signal("KILL"); // published and flushed, its mark still waiting for the lock
      first.awaitExit(Duration.ofSeconds(30));
      holder.rollback();
      assertThat(unpublished()).as("published, never marked").isEqualTo(4);

      cluster.worker("worker-b", bus);
      List<UUID> after = ids(kandevProcess.next(4, Duration.ofSeconds(60)));
      Await.until(() -> unpublished() == 0, Duration.ofSeconds(30), "the outbox to be marked published");

      assertThat(before).containsExactlyElementsOf(stored);
      assertThat(after).as("the same events again, recognisable by id").containsExactlyElementsOf(stored);
    }
  }

  private static List<UUID> ids(List<Message> messages) throws IOException {
    List<UUID> ids = new ArrayList<>();
    for (Message message : messages) {
      ids.add(UUID.fromString(Json.mapper().readTree(new String(message.getData(), StandardCharsets.UTF_8)).get("id").asText()));
    }
    return ids;
  }

  /** The transitions of a resume on Kandev's rows, each with its events, committed as the kandev layout commits them. */
  private List<UUID> commitResumeTransitions() {
    OutboxKandevEvents events = new OutboxKandevEvents(kandevSchema, Json.mapper(), Clock.systemUTC());
    cluster.tx((Handle h) -> {
      h.execute("UPDATE " + kandevSchema + ".task_sessions SET state = 'STARTING' WHERE id = 's-1'");
      events.sessionStateChanged(h, "s-1", "FAILED");
      return null;
    });
    cluster.tx((Handle h) -> {
      h.execute("UPDATE " + kandevSchema + ".task_sessions SET state = 'WAITING_FOR_INPUT' WHERE id = 's-1'");
      events.sessionStateChanged(h, "s-1", "STARTING");
      h.execute("UPDATE " + kandevSchema + ".tasks SET state = 'REVIEW' WHERE id = 't-1'");
      events.taskStateChanged(h, "t-1", "IN_PROGRESS");
      return null;
    });
    return cluster.tx((Handle h) -> new KandevOutboxStore().nextUnpublished(h, 100)).stream()
        .map(PendingEvent::eventId).toList();
  }

  private long unpublished() {
    return cluster.tx((Handle h) -> new KandevOutboxStore().unpublished(h));
  }
}
