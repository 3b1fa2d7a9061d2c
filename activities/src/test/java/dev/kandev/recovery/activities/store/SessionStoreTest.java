package dev.kandev.recovery.activities.store;

import static dev.kandev.recovery.workflows.model.SessionState.CANCELLED;
import static dev.kandev.recovery.workflows.model.SessionState.COMPLETED;
import static dev.kandev.recovery.workflows.model.SessionState.CREATED;
import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.RUNNING;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.TransitionResult.Outcome;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.activities.testing.Fixtures;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.model.TaskState;
import org.jdbi.v3.core.Handle;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The session store's promises, on both layouts: our mirror and Kandev's own tables. */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
class SessionStoreTest {
  private final StoreLayout.Kind layout;
  @RegisterExtension final TestDatabase db;

  private SessionStore sessions;
  private Fixtures fixtures;

  SessionStoreTest(StoreLayout.Kind layout) {
    this.layout = layout;
    this.db = new TestDatabase(layout);
  }

  @BeforeEach
  void setUp() {
    sessions = KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE).sessions();
    fixtures = db.fixtures();
  }

  private void session(SessionState state) {
    fixtures.sessionWithToken("s1", state, "tok-1");
  }

  @Test
  void transitionFromAnExpectedStateWinsAndPublishesOneEvent() {
    session(FAILED);

    TransitionResult result = db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED, CANCELLED), STARTING, "resume", "", Fence.none()));

    assertThat(result).isEqualTo(new TransitionResult(Outcome.APPLIED, FAILED, STARTING));
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).state()).isEqualTo(STARTING);
    assertThat(fixtures.string("SELECT from_state || '>' || to_state || ':' || reason FROM session_events"))
        .isEqualTo("FAILED>STARTING:resume");
  }

  @Test
  void aSessionThatIsNotFailedKeepsOneLineOfItsErrorAndOurEventKeepsAll() {
    session(STARTING);
    String error = "resume failed at LAUNCH_AGENT (AGENT_SESSION_LOAD_REJECTED): rejected; stderr tail:\nline 1\nline 2";
    db.run(h -> sessions.transition(h, "s1", Set.of(STARTING), WAITING_FOR_INPUT, "resume rolled back", error, Fence.none()));
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).errorMessage())
        .isEqualTo("resume failed at LAUNCH_AGENT (AGENT_SESSION_LOAD_REJECTED): rejected; stderr tail:");
    assertThat(fixtures.string("SELECT error_message FROM session_events WHERE session_id = 's1' ORDER BY id DESC LIMIT 1"))
        .isEqualTo(error);

    db.run(h -> sessions.transition(h, "s1", Set.of(WAITING_FOR_INPUT), FAILED, "agent died", error, Fence.none()));
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).errorMessage()).as("a FAILED session keeps all").isEqualTo(error);
  }

  @Test
  void transitionFromAnotherStateLosesAndWritesNothing() {
    session(WAITING_FOR_INPUT);
    String before = fixtures.dump("task_sessions");

    TransitionResult result = db.tx(h -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", Fence.none()));

    assertThat(result).isEqualTo(new TransitionResult(Outcome.STATE_MISMATCH, WAITING_FOR_INPUT, WAITING_FOR_INPUT));
    assertThat(fixtures.dump("task_sessions")).isEqualTo(before);
    assertThat(fixtures.count("SELECT count(*) FROM session_events")).isZero();
  }

  @Test
  void restoreLosesToAnEarlierTerminalWinnerAndTheSessionStaysCompleted() {
    session(STARTING);
    assertThat(db.tx((Handle h) -> sessions.transition(h, "s1", Set.of(STARTING), COMPLETED, "agent finished", "", Fence.none())).won()).isTrue();

    TransitionResult restore = db.tx(h -> sessions.transition(h, "s1", Set.of(STARTING), FAILED, "rollback", "boom", Fence.none()));

    assertThat(restore.outcome()).isEqualTo(Outcome.STATE_MISMATCH);
    assertThat(restore.now()).isEqualTo(COMPLETED);
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).state()).isEqualTo(COMPLETED);
  }

  @ParameterizedTest
  @EnumSource(value = SessionState.class, names = {"FAILED", "CANCELLED"})
  void aResumableTerminalStateOnlyLeavesTowardsStarting(SessionState terminal) {
    session(terminal);

    assertThatThrownBy(() -> db.tx(h -> sessions.transition(h, "s1", Set.of(terminal), WAITING_FOR_INPUT, "x", "", Fence.none())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only leaves its state through a resume to STARTING");
    assertThat(db.tx((Handle h) -> sessions.transition(h, "s1", Set.of(terminal), STARTING, "resume", "", Fence.none())).won()).isTrue();
  }

  @Test
  void completedNeverChanges() {
    session(COMPLETED);

    assertThatThrownBy(() -> db.tx(h -> sessions.transition(h, "s1", Set.of(COMPLETED), STARTING, "resume", "", Fence.none())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("COMPLETED session never changes");
    assertThat(db.tx((Handle h) -> sessions.transition(h, "s1", Set.of(FAILED), STARTING, "resume", "", Fence.none())).won()).isFalse();
  }

  @Test
  void theDatabaseRefusesToMoveATerminalSessionEvenForARawWriter() {
    assumeTrue(layout == StoreLayout.Kind.MIRROR, "only our mirror has the trigger; Kandev's tables have none of ours");
    session(CANCELLED);

    assertThatThrownBy(() -> fixtures.exec("UPDATE task_sessions SET state = 'RUNNING' WHERE id = 's1'"))
        .hasMessageContaining("terminal session only leaves its state through a resume to STARTING");
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).state()).isEqualTo(CANCELLED);
  }

  @Test
  void everyNonTerminalPairThatMattersIsACompareAndSet() {
    session(CREATED);
    SessionState[][] path = {
      {CREATED, STARTING}, {STARTING, WAITING_FOR_INPUT}, {WAITING_FOR_INPUT, RUNNING},
      {RUNNING, WAITING_FOR_INPUT}, {WAITING_FOR_INPUT, FAILED}, {FAILED, STARTING}, {STARTING, FAILED},
      {FAILED, STARTING}, {STARTING, CANCELLED}, {CANCELLED, STARTING}, {STARTING, COMPLETED}
    };
    for (SessionState[] step : path) {
      SessionState wrong = EnumSet.complementOf(EnumSet.of(step[0], step[1], COMPLETED)).iterator().next();
      if (!wrong.isTerminal() || step[1] == STARTING) {
        assertThat(db.tx((Handle h) -> sessions.transition(h, "s1", Set.of(wrong), step[1], "wrong", "", Fence.none())).won())
            .as("%s -> %s from the wrong state %s", step[0], step[1], wrong)
            .isFalse();
      }
      assertThat(db.tx((Handle h) -> sessions.transition(h, "s1", Set.of(step[0]), step[1], "step", "", Fence.none())).won())
          .as("%s -> %s", step[0], step[1])
          .isTrue();
    }
    assertThat(fixtures.count("SELECT count(*) FROM session_events")).isEqualTo(path.length);
    assertThat(fixtures.string("SELECT completed_at IS NOT NULL FROM task_sessions WHERE id = 's1'")).isEqualTo("t");
  }

  @Test
  void guardedMetadataWriteAppliesOnlyInTheExpectedState() {
    session(STARTING);
    var snapshot = JsonNodeFactory.instance.objectNode().put("policy", "github_app");

    assertThat(db.tx((Handle h) -> sessions.writeMetadataEntry(h, "s1", "git_credential_snapshot", snapshot, Set.of(STARTING), Fence.none())).applied())
        .isTrue();
    db.tx(h -> sessions.transition(h, "s1", Set.of(STARTING), CANCELLED, "user cancelled", "", Fence.none()));
    GuardedWriteResult late =
        db.tx(h -> sessions.writeMetadataEntry(h, "s1", "git_credential_snapshot", null, Set.of(STARTING), Fence.none()));

    assertThat(late).isEqualTo(new GuardedWriteResult(Outcome.STATE_MISMATCH, CANCELLED));
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).metadataEntry("git_credential_snapshot").orElseThrow().path("policy").asText())
        .isEqualTo("github_app");
    assertThat(TestStores.acpSessionId(db.tx((Handle h) -> sessions.get(h, "s1")))).contains("tok-1");
  }

  private TransitionResult settle(Handle h, String sessionId) {
    return sessions.settle(h, sessionId, Set.of(STARTING), Set.of(TaskState.IN_PROGRESS), "resume settled", "", Fence.none());
  }

  @Test
  void settleMovesTheSessionAndItsTaskTogether() {
    fixtures.task("t1", "ws-1", "IN_PROGRESS").session("s1", "t1", "test-agent", STARTING, "{}");

    TransitionResult settled = db.tx(h -> settle(h, "s1"));

    assertThat(settled.won()).isTrue();
    assertThat(fixtures.string("SELECT s.state || '/' || t.state FROM task_sessions s JOIN tasks t ON t.id = s.task_id"))
        .isEqualTo("WAITING_FOR_INPUT/REVIEW");
  }

  @Test
  void aSettleThatLosesLeavesTheTaskAlone() {
    fixtures.task("t1", "ws-1", "IN_PROGRESS").session("s1", "t1", "test-agent", CANCELLED, "{}");

    TransitionResult settled = db.tx(h -> settle(h, "s1"));

    assertThat(settled.outcome()).isEqualTo(Outcome.STATE_MISMATCH);
    assertThat(fixtures.string("SELECT state FROM tasks WHERE id = 't1'")).isEqualTo("IN_PROGRESS");
  }

  @Test
  void aSettleWhoseTaskWriteFailsLeavesTheSessionStarting() {
    fixtures.task("t1", "ws-1", "IN_PROGRESS").session("s1", "t1", "test-agent", STARTING, "{}");
    fixtures.exec("CREATE FUNCTION refuse_task_write() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'task write refused'; END $$"
        + " LANGUAGE plpgsql");
    fixtures.exec("CREATE TRIGGER refuse_task_write BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION refuse_task_write()");

    assertThatThrownBy(() -> db.tx(h -> settle(h, "s1")))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("task write refused");
    assertThat(db.tx((Handle h) -> sessions.get(h, "s1")).state()).isEqualTo(STARTING);
    assertThat(fixtures.count("SELECT count(*) FROM session_events")).isZero();
  }

  @Test
  void unknownSessionIsAClearErrorAndWritesNothing() {
    assertThatThrownBy(() -> db.tx(h -> sessions.transition(h, "nope", Set.of(FAILED), STARTING, "resume", "", Fence.none())))
        .isInstanceOf(UnknownSessionException.class)
        .hasMessage("unknown session 'nope'");
    assertThatThrownBy(() -> db.tx(h -> sessions.get(h, "nope"))).isInstanceOf(UnknownSessionException.class);
    assertThat(fixtures.count("SELECT count(*) FROM session_events")).isZero();
  }

  @Test
  void unknownStateStringIsAClearError() {
    assertThatThrownBy(() -> SessionState.parse("PAUSED"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown session state 'PAUSED'; expected one of CREATED, STARTING");
  }

  @Test
  void malformedMetadataIsRejectedAndNothingIsWritten() {
    session(STARTING);
    String before = fixtures.dump("task_sessions");

    assertThatThrownBy(() -> db.tx(h -> sessions.writeMetadataEntry(h, "s1", "acp", JsonNodeFactory.instance.textNode("x"), Set.of(STARTING), Fence.none())))
        .hasMessageContaining("not writable here");
    assertThatThrownBy(() -> db.tx(h -> sessions.writeMetadataEntry(h, "s1", "../x", JsonNodeFactory.instance.textNode("x"), Set.of(STARTING), Fence.none())))
        .hasMessageContaining("not writable here");
    if (layout == StoreLayout.Kind.MIRROR) {
      assertThatThrownBy(() -> fixtures.exec("UPDATE task_sessions SET metadata = '[1]'::jsonb WHERE id = 's1'"))
          .hasMessageContaining("check constraint");
    }
    assertThat(fixtures.dump("task_sessions")).isEqualTo(before);
  }
}
