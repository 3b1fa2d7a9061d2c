package dev.kandev.recovery.activities.store;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import org.jdbi.v3.core.Handle;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The resume token and its mirror, on both layouts: our mirror and Kandev's own tables. */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
class SessionIdentityStoreTest {
  @RegisterExtension final TestDatabase db;
  private SessionIdentityStore identities;
  private SessionStore sessions;

  SessionIdentityStoreTest(StoreLayout.Kind layout) {
    this.db = new TestDatabase(layout);
  }

  @BeforeEach
  void setUp() {
    KandevLayoutStores stores = KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE);
    identities = stores.identities();
    sessions = stores.sessions();
  }

  @Test
  void everyFailurePathOperationLeavesBothIdentitiesUnchanged() {
    db.fixtures().sessionWithToken("s1", FAILED, "tok-1");

    db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", Fence.none()));
    db.tx(h -> sessions.writeMetadataEntry(h, "s1", "git_credential_snapshot",
        JsonNodeFactory.instance.objectNode().put("policy", "none"), Set.of(STARTING), Fence.none()));
    db.tx(h -> sessions.transition(h, "s1", Set.of(STARTING), FAILED, "rollback", "agent exited before initialize", Fence.none()));
    db.tx(h -> sessions.writeMetadataEntry(h, "s1", "git_credential_snapshot", null, Set.of(STARTING), Fence.none()));

    assertThat(db.tx((Handle h) -> identities.read(h, "s1"))).isEqualTo(new SessionIdentity("tok-1", "tok-1"));
  }

  @Test
  void freshStartClearsBothAndKeepsOtherAcpKeys() {
    db.fixtures().sessionWithToken("s1", WAITING_FOR_INPUT, "tok-1");
    db.fixtures().exec("UPDATE task_sessions SET metadata = jsonb_set(metadata::jsonb, '{acp,title}', '\"t\"')");

    db.run(h -> identities.clearForFreshStart(h, "s1", Fence.none()));

    assertThat(db.tx((Handle h) -> identities.read(h, "s1"))).isEqualTo(new SessionIdentity("", ""));
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).metadata().path("acp").path("title").asText()).isEqualTo("t");
  }

  @Test
  void replacementWritesBothTogether() {
    db.fixtures().sessionWithToken("s1", STARTING, "tok-1");

    db.run(h -> identities.replaceAfterNewSession(h, "s1", "tok-2", Fence.none()));

    assertThat(db.tx((Handle h) -> identities.read(h, "s1"))).isEqualTo(new SessionIdentity("tok-2", "tok-2"));
    assertThat(TestStores.acpSessionId(db.tx((Handle h) -> sessions.get(h, "s1")))).contains("tok-2");
  }

  @Test
  void replacementCreatesTheRuntimeRowOfASessionThatNeverRan() {
    db.fixtures().task("t1", "ws-1", "TODO").session("s1", "t1", "test-agent", STARTING, "{}");

    db.run(h -> identities.replaceAfterNewSession(h, "s1", "tok-new", Fence.none()));

    assertThat(db.tx((Handle h) -> identities.read(h, "s1"))).isEqualTo(new SessionIdentity("tok-new", "tok-new"));
  }

  @Test
  void aBlankReplacementIsRefusedAndChangesNothing() {
    db.fixtures().sessionWithToken("s1", STARTING, "tok-1");

    assertThatThrownBy(() -> db.run(h -> identities.replaceAfterNewSession(h, "s1", " ", Fence.none())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be blank");
    assertThatThrownBy(() -> db.run(h -> identities.replaceAfterNewSession(h, "s1", null, Fence.none())))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(db.tx((Handle h) -> identities.read(h, "s1"))).isEqualTo(new SessionIdentity("tok-1", "tok-1"));
  }

  @Test
  void unknownSessionIsAClearErrorAndCreatesNoRow() {
    assertThatThrownBy(() -> db.run(h -> identities.replaceAfterNewSession(h, "nope", "tok", Fence.none())))
        .isInstanceOf(UnknownSessionException.class);
    assertThatThrownBy(() -> db.tx(h -> identities.read(h, "nope"))).isInstanceOf(UnknownSessionException.class);
    assertThat(db.fixtures().count("SELECT count(*) FROM executors_running")).isZero();
  }
}
