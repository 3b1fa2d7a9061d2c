package dev.kandev.recovery.activities.store;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

class SessionEventsTest {
  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void aWonTransitionIsAnnouncedToListenersWithItsEvent() throws Exception {
    db.fixtures().sessionWithToken("s1", FAILED, "tok-1");
    SessionStore sessions = new SessionStore(Json.mapper());
    try (Connection listener = db.dataSource().getConnection();
        Statement listen = listener.createStatement()) {
      listen.execute("LISTEN " + SessionStore.EVENTS_CHANNEL);

      db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", Fence.none()));
      db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "lost race", "", Fence.none()));

      PGNotification[] notes = listener.unwrap(PGConnection.class).getNotifications(10_000);
      assertThat(notes).hasSize(1);
      var event = Json.mapper().readTree(notes[0].getParameter());
      assertThat(event.path("sessionId").asText()).isEqualTo("s1");
      assertThat(event.path("from").asText()).isEqualTo("FAILED");
      assertThat(event.path("to").asText()).isEqualTo("STARTING");
      assertThat(event.path("schema").asText()).isEqualTo(db.database().schema());
    }
  }
}
