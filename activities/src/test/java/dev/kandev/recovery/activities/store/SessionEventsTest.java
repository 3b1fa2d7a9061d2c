package dev.kandev.recovery.activities.store;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

class SessionEventsTest {
  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void aWonTransitionIsAnnouncedToListenersWithItsEvent() throws Exception {
    db.fixtures().sessionWithToken("s1", FAILED, "tok-1");
    SessionStore sessions = new MirrorSessionStore(Json.mapper());
    try (Connection listener = db.dataSource().getConnection();
        Statement listen = listener.createStatement()) {
      listen.execute("LISTEN " + SessionStore.EVENTS_CHANNEL);

      db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", Fence.none()));
      db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "lost race", "", Fence.none()));

      List<JsonNode> notes = ownEvents(listener.unwrap(PGConnection.class));
      assertThat(notes).hasSize(1);
      var event = notes.get(0);
      assertThat(event.path("sessionId").asText()).isEqualTo("s1");
      assertThat(event.path("from").asText()).isEqualTo("FAILED");
      assertThat(event.path("to").asText()).isEqualTo("STARTING");
      assertThat(event.path("schema").asText()).isEqualTo(db.database().schema());
    }
  }

  /**
   * The events of this test's schema: the channel is shared by every schema of the database (other
   * builds may publish on it too). Both transitions committed before this reads, so once one event
   * of ours arrived, any other is already pending.
   */
  private List<JsonNode> ownEvents(PGConnection listener) throws Exception {
    List<JsonNode> own = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (own.isEmpty() && System.nanoTime() < deadline) {
      collectOwn(listener.getNotifications(1_000), own);
    }
    collectOwn(listener.getNotifications(), own);
    return own;
  }

  private void collectOwn(PGNotification[] notes, List<JsonNode> own) throws Exception {
    for (PGNotification note : notes == null ? new PGNotification[0] : notes) {
      JsonNode event = Json.mapper().readTree(note.getParameter());
      if (event.path("schema").asText().equals(db.database().schema())) {
        own.add(event);
      }
    }
  }
}
