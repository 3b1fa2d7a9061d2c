package dev.kandev.recovery.activities.resume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.TestSessionActivities;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Another writer moved the session out of STARTING mid-resume, on both layouts: the settle ends as a
 * lost race ({@code SESSION_STATE_SUPERSEDED}), never as settled, and the restore writes nothing over
 * the other writer's state. A settle of ours whose result was lost is still recognised as done.
 */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
class SettleLostRaceTest {
  @RegisterExtension final TestDatabase db;

  private final ResumeLockStore locks = new ResumeLockStore();
  private SessionActivitiesImpl activities;
  private ExecutorsRunningStore executors;
  private String sessions;

  SettleLostRaceTest(StoreLayout.Kind layout) {
    this.db = new TestDatabase(layout);
  }

  @BeforeEach
  void setUp() {
    KandevLayoutStores stores = KandevLayoutStores.of(db.layout(), Json.mapper(), KandevEventOutbox.NONE);
    executors = stores.executors();
    activities = TestSessionActivities.of(db.transactions(), stores, "worker-1");
    db.fixtures().sessionWithToken("s1", SessionState.FAILED, "tok-1");
    sessions = db.layout().kandevTable("task_sessions");
  }

  private Fence startedWithAServingAgent() {
    Fence fence = db.tx((Handle h) -> locks.acquire(h, "s1", "resume-1", Duration.ofMinutes(5))).orElseThrow().fence();
    activities.markStarting("s1", SessionState.FAILED, "user", fence);
    // An agent of another live worker instance serves it (the settle takes it at its row's word).
    db.fixtures().exec("INSERT INTO worker_presence (worker_instance, host) VALUES ('worker-2', 'host-a')");
    db.run(h -> executors.recordStarting(h, "s1", "exec-1", "host-a", "worker-2", 4242));
    db.run(h -> executors.markRunning(h, "s1", "exec-1", fence));
    return fence;
  }

  @Test
  void aSessionAnotherWriterSettledMidResumeIsALostRaceAndKeepsThatWritersState() {
    Fence fence = startedWithAServingAgent();
    db.fixtures().exec("UPDATE " + sessions + " SET state = 'WAITING_FOR_INPUT', error_message = 'theirs' WHERE id = 's1'");

    assertThatThrownBy(() -> activities.settleSession("s1", fence))
        .isInstanceOfSatisfying(ApplicationFailure.class,
            failure -> assertThat(failure.getType()).isEqualTo(FailureType.SESSION_STATE_SUPERSEDED.type()));
    assertThat(activities.restorePriorState("s1", SessionState.FAILED, "resume failed", fence))
        .isEqualTo(SessionState.WAITING_FOR_INPUT);
    assertThat(db.fixtures().string("SELECT state || '|' || error_message FROM " + sessions + " WHERE id = 's1'"))
        .isEqualTo("WAITING_FOR_INPUT|theirs");
  }

  @Test
  void aSettleOfOursThatRunsAgainIsStillDone() {
    Fence fence = startedWithAServingAgent();
    assertThat(activities.settleSession("s1", fence)).isEqualTo(SessionState.WAITING_FOR_INPUT);
    assertThat(activities.settleSession("s1", fence)).as("its result was lost: run again").isEqualTo(SessionState.WAITING_FOR_INPUT);
  }
}
