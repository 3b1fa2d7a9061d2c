package dev.kandev.recovery.worker.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.SessionState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** The STARTING gauges count the sessions of the store's layout: our mirror's, or Kandev's own. */
@ParameterizedClass
@EnumSource(StoreLayout.Kind.class)
class StoreGaugesLayoutTest {
  @RegisterExtension final TestDatabase db;

  StoreGaugesLayoutTest(StoreLayout.Kind layout) {
    this.db = new TestDatabase(layout);
  }

  @Test
  void theStartingGaugesCountTheLayoutsSessions() {
    db.fixtures().task("t1", "ws-1", "IN_PROGRESS").session("s1", "t1", "agent", SessionState.STARTING, "{}")
        .task("t2", "ws-1", "REVIEW").session("s2", "t2", "agent", SessionState.WAITING_FOR_INPUT, "{}");
    db.fixtures().exec("UPDATE task_sessions SET updated_at = updated_at - interval '90 seconds' WHERE id = 's1'");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    StoreGauges.register(registry, db.transactions(), db.layout());

    assertThat(registry.get("kandev_sessions_starting").gauge().value()).isEqualTo(1.0);
    // The STARTING session's updated_at, 90 s ago (Kandev's: a naive UTC timestamp, read as UTC).
    assertThat(registry.get("kandev_sessions_starting_oldest_seconds").gauge().value()).isBetween(85.0, 150.0);
  }
}
