package dev.kandev.recovery.activities.store.kandev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.KandevOutboxStore;
import dev.kandev.recovery.activities.store.KandevOutboxStore.PendingEvent;
import dev.kandev.recovery.activities.testing.TestDatabase;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Kandev's events built from rows of a fixture of Kandev's columns, appended to our outbox in the caller's transaction. */
class OutboxKandevEventsTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final KandevEventColumns kandev = new KandevEventColumns(db);

  private static final ObjectMapper JSON = Json.mapper();
  private static final Instant NOW = Instant.parse("2026-12-04T15:40:00.5Z");
  private final KandevOutboxStore outbox = new KandevOutboxStore();

  private OutboxKandevEvents events() {
    return new OutboxKandevEvents(kandev.schema(), JSON, Clock.fixed(NOW, ZoneOffset.UTC));
  }

  private void taskWithPrimarySession(String metadata) {
    db.fixtures().exec("INSERT INTO " + kandev.table("tasks") + " (id, title, workspace_id, workflow_id, workflow_step_id,"
        + " description, state, priority, position, metadata, created_at, updated_at) VALUES ('t-1', 'Fix the build',"
        + " 'ws-1', 'wf-1', 'step-review', 'why it broke', 'REVIEW', 'high', 3, '{\"auto_start_failed\":true}',"
        + " '2026-12-01 10:00:00', '2026-12-04 15:33:02.123456')");
    db.fixtures().exec("INSERT INTO " + kandev.table("task_sessions") + " (id, task_id, agent_profile_id,"
        + " agent_profile_snapshot, state, metadata, is_primary, executor_id, name, started_at, updated_at)"
        + " VALUES ('s-1', 't-1', 'prof-1', '{\"model\":\"m\"}', 'STARTING', ?, 1, 'exec-1', 'main',"
        + " '2026-12-04 15:00:00', '2026-12-04 15:33:02.1234')", metadata);
  }

  private List<PendingEvent> stored() {
    return db.tx((Handle h) -> outbox.nextUnpublished(h, 100));
  }

  private static JsonNode envelope(PendingEvent event) throws Exception {
    return JSON.readTree(event.envelope());
  }

  @Test
  void aSessionTransitionStoresKandevsEnvelopeWithEveryAlwaysPresentKeyOfItsPayload() throws Exception {
    taskWithPrimarySession("{\"acp\":{\"session_id\":\"acp-1\"},\"last_agent_error\":{\"message\":\"boom\"}}");

    db.run((Handle h) -> events().sessionStateChanged(h, "s-1", "FAILED"));

    List<PendingEvent> events = stored();
    assertThat(events).hasSize(1);
    JsonNode e = envelope(events.get(0));
    assertThat(events.get(0).subject()).isEqualTo("task_session.state_changed");
    assertThat(e.fieldNames()).toIterable().containsExactly("id", "type", "subject", "source", "timestamp", "data");
    assertThat(e.get("id").asText()).isEqualTo(events.get(0).eventId().toString());
    assertThat(e.get("type").asText()).isEqualTo("task_session.state_changed");
    assertThat(e.get("subject").asText()).isEqualTo("task_session.state_changed");
    assertThat(e.get("source").asText()).isEqualTo("kandev-recovery");
    assertThat(e.get("timestamp").asText()).isEqualTo("2026-12-04T15:40:00.5Z");

    JsonNode data = e.get("data");
    for (String key : List.of("task_id", "session_id", "old_state", "new_state", "error_message", "agent_profile_id",
        "execution_profile_id", "name", "route_state", "route_reason", "route_error_code", "route_error_class",
        "route_catalogue_version", "route_pending_outcome", "downstream_acp_session_id", "updated_at")) {
      assertThat(data.get(key)).as(key).isNotNull();
      assertThat(data.get(key).isTextual()).as(key + " is a string").isTrue();
    }
    for (String key : List.of("route_generation", "route_retry_ordinal", "active_subagent_count")) {
      assertThat(data.get(key).isIntegralNumber()).as(key + " is an integer").isTrue();
    }
    for (String key : List.of("is_passthrough", "is_primary", "supports_steering")) {
      assertThat(data.get(key).isBoolean()).as(key + " is a boolean").isTrue();
    }
    assertThat(data.get("task_id").asText()).isEqualTo("t-1");
    assertThat(data.get("session_id").asText()).isEqualTo("s-1");
    assertThat(data.get("old_state").asText()).isEqualTo("FAILED");
    assertThat(data.get("new_state").asText()).isEqualTo("STARTING");
    assertThat(data.get("agent_profile_id").asText()).isEqualTo("prof-1");
    assertThat(data.get("agent_profile_snapshot").get("model").asText()).isEqualTo("m");
    assertThat(data.get("is_primary").asBoolean()).isTrue();
    assertThat(data.get("is_passthrough").asBoolean()).isFalse();
    assertThat(data.has("foreground_activity")).as("foreground_activity present").isTrue();
    assertThat(data.get("foreground_activity").isNull()).as("foreground_activity explicitly null").isTrue();
    assertThat(data.get("route_deadline").isNull()).isTrue();
    assertThat(data.get("active_subagent_count").asInt()).isZero();
    assertThat(data.get("updated_at").asText()).isEqualTo("2026-12-04T15:33:02.1234Z");
    assertThat(data.get("name").asText()).isEqualTo("main");
    assertThat(data.get("session_metadata").get("acp").get("session_id").asText()).isEqualTo("acp-1");
    assertThat(data.get("session_metadata").get("last_agent_error").get("message").asText()).isEqualTo("boom");
    assertThat(data.has("review_status")).isFalse();
    assertThat(data.has("workspace_id")).as("Kandev's session event has no workspace_id").isFalse();
  }

  @Test
  void theEventShowsTheRowAsTheTransactionThatChangedItSeesIt() throws Exception {
    taskWithPrimarySession("{}");

    db.run((Handle h) -> {
      h.execute("UPDATE " + kandev.table("task_sessions") + " SET state = 'WAITING_FOR_INPUT',"
          + " updated_at = '2026-12-04 15:35:00' WHERE id = 's-1'");
      events().sessionStateChanged(h, "s-1", "STARTING");
    });

    JsonNode data = envelope(stored().get(0)).get("data");
    assertThat(data.get("old_state").asText()).isEqualTo("STARTING");
    assertThat(data.get("new_state").asText()).isEqualTo("WAITING_FOR_INPUT");
    assertThat(data.get("updated_at").asText()).isEqualTo("2026-12-04T15:35:00Z");
    assertThat(data.get("session_metadata").isObject()).isTrue();
    assertThat(data.get("session_metadata").size()).isZero();
  }

  @Test
  void aTransitionRolledBackLeavesNoEvent() {
    taskWithPrimarySession("{}");

    assertThatThrownBy(() -> db.run((Handle h) -> {
      events().sessionStateChanged(h, "s-1", "FAILED");
      throw new IllegalStateException("the transition lost");
    })).hasMessage("the transition lost");

    assertThat(stored()).isEmpty();
  }

  @Test
  void metadataKandevNormalisesIsAnEmptyMapAndMetadataThatIsNoObjectIsLeftOut() throws Exception {
    taskWithPrimarySession("");
    db.run((Handle h) -> events().sessionStateChanged(h, "s-1", "FAILED"));
    db.fixtures().exec("UPDATE " + kandev.table("task_sessions") + " SET metadata = 'null'");
    db.run((Handle h) -> events().sessionStateChanged(h, "s-1", "FAILED"));
    db.fixtures().exec("UPDATE " + kandev.table("task_sessions") + " SET metadata = '[1,'");
    db.run((Handle h) -> events().sessionStateChanged(h, "s-1", "FAILED"));

    List<PendingEvent> events = stored();
    assertThat(envelope(events.get(0)).get("data").get("session_metadata").size()).isZero();
    assertThat(envelope(events.get(1)).get("data").get("session_metadata").size()).isZero();
    assertThat(envelope(events.get(2)).get("data").has("session_metadata")).isFalse();
  }

  @Test
  void aTaskTransitionStoresStateChangedThenUpdatedWithTheFullFieldSet() throws Exception {
    taskWithPrimarySession("{}");

    db.run((Handle h) -> events().taskStateChanged(h, "t-1", "IN_PROGRESS"));

    List<PendingEvent> events = stored();
    assertThat(events).extracting(PendingEvent::subject).containsExactly("task.state_changed", "task.updated");
    assertThat(events.get(0).eventId()).isNotEqualTo(events.get(1).eventId());
    for (PendingEvent event : events) {
      JsonNode e = envelope(event);
      assertThat(e.get("type").asText()).isEqualTo(event.subject());
      assertThat(e.get("subject").asText()).isEqualTo(event.subject());
      JsonNode data = e.get("data");
      for (String key : List.of("task_id", "workspace_id", "workflow_id", "workflow_step_id", "title", "description",
          "state", "priority", "origin", "created_at", "updated_at", "queued_for_step_id")) {
        assertThat(data.get(key)).as(key).isNotNull();
        assertThat(data.get(key).isTextual()).as(key + " is a string").isTrue();
      }
      for (String key : List.of("wip_admitted", "is_ephemeral", "autopilot", "auto_start_failed")) {
        assertThat(data.get(key).isBoolean()).as(key + " is a boolean").isTrue();
      }
      assertThat(data.get("position").isIntegralNumber()).isTrue();
      assertThat(data.get("position").asInt()).isEqualTo(3);
      assertThat(data.get("title").asText()).isEqualTo("Fix the build");
      assertThat(data.get("workflow_step_id").asText()).isEqualTo("step-review");
      assertThat(data.get("state").asText()).isEqualTo("REVIEW");
      assertThat(data.get("priority").asText()).isEqualTo("high");
      assertThat(data.get("auto_start_failed").asBoolean()).isTrue();
      assertThat(data.get("created_at").asText()).isEqualTo("2026-12-01T10:00:00Z");
      assertThat(data.get("updated_at").asText()).isEqualTo("2026-12-04T15:33:02.123456Z");
      assertThat(data.has("queued_at") && data.get("queued_at").isNull()).as("queued_at explicit null").isTrue();
      assertThat(data.has("archived_at") && data.get("archived_at").isNull()).as("archived_at explicit null").isTrue();
      assertThat(data.get("session_count").asInt()).isEqualTo(1);
      assertThat(data.get("primary_session_id").asText()).isEqualTo("s-1");
      assertThat(data.get("primary_session_state").asText()).isEqualTo("STARTING");
      assertThat(data.get("primary_executor_id").asText()).isEqualTo("exec-1");
      assertThat(data.get("metadata").get("auto_start_failed").asBoolean()).isTrue();
    }
    JsonNode changed = envelope(events.get(0)).get("data");
    assertThat(changed.get("old_state").asText()).isEqualTo("IN_PROGRESS");
    assertThat(changed.get("new_state").asText()).isEqualTo("REVIEW");
    JsonNode updated = envelope(events.get(1)).get("data");
    assertThat(updated.has("old_state")).isFalse();
    assertThat(updated.has("new_state")).isFalse();
  }

  @Test
  void aTaskWithoutAPrimarySessionSaysSoExplicitly() throws Exception {
    taskWithPrimarySession("{}");
    db.fixtures().exec("UPDATE " + kandev.table("task_sessions") + " SET is_primary = 0");

    db.run((Handle h) -> events().taskStateChanged(h, "t-1", "IN_PROGRESS"));

    JsonNode data = envelope(stored().get(0)).get("data");
    assertThat(data.get("primary_session_id").isNull()).isTrue();
    assertThat(data.get("primary_session_state").isNull()).isTrue();
    assertThat(data.get("primary_session_pending_action").isNull()).isTrue();
  }

  @Test
  void anEventOfARowThatIsNotThereFailsTheTransactionAndStoresNothing() {
    assertThatThrownBy(() -> db.run((Handle h) -> events().sessionStateChanged(h, "s-missing", "FAILED")))
        .hasMessageContaining("s-missing");
    assertThatThrownBy(() -> db.run((Handle h) -> events().taskStateChanged(h, "t-missing", "TODO")))
        .hasMessageContaining("t-missing");
    assertThat(stored()).isEmpty();
  }

  @Test
  void eventsAreStoredInTheOrderTheirTransactionsAppendedThem() {
    taskWithPrimarySession("{}");
    for (int i = 0; i < 5; i++) {
      db.run((Handle h) -> events().sessionStateChanged(h, "s-1", "FAILED"));
    }
    List<PendingEvent> events = stored();
    assertThat(events).extracting(PendingEvent::seq).isSorted().doesNotHaveDuplicates();
    assertThat(events).extracting(PendingEvent::eventId).doesNotHaveDuplicates().allMatch(id -> id.version() == 4);
    assertThat(UUID.fromString(events.get(0).eventId().toString())).isEqualTo(events.get(0).eventId());
  }
}
