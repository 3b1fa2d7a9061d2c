package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.RuntimeJobRecord;
import dev.kandev.recovery.activities.store.RuntimeJobStore;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.runtime.RuntimeJobSnapshot;
import dev.kandev.recovery.workflows.runtime.RuntimeJobStatus;
import org.jdbi.v3.core.Handle;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RuntimeJobStoreTest {
  @RegisterExtension final TestDatabase db = new TestDatabase();

  private RuntimeJobSnapshot snapshot(RuntimeJobStatus status, int attempts, boolean repaired, List<String> lines, String error) {
    return new RuntimeJobSnapshot("run-1", "runtime-update-opencode-acp", "opencode-acp", "opencode-ai", "user:alice",
        status, attempts, repaired, lines, error);
  }

  @Test
  void savingIsAnUpsertThatFinishesOnceTerminal() {
    RuntimeJobStore jobs = new RuntimeJobStore(Json.mapper());

    db.run(h -> jobs.save(h, snapshot(RuntimeJobStatus.QUEUED, 0, false, List.of("requested"), "")));
    RuntimeJobRecord queued = db.tx(h -> TestStores.runtimeJob(h, "run-1")).orElseThrow();
    assertThat(queued.job().status()).isEqualTo(RuntimeJobStatus.QUEUED);
    assertThat(queued.finishedAt()).isNull();

    db.run(h -> jobs.save(h, snapshot(RuntimeJobStatus.FAILED, 2, true, List.of("requested", "failed: \"x\""), "boom")));
    db.run(h -> jobs.save(h, snapshot(RuntimeJobStatus.FAILED, 2, true, List.of("requested", "failed: \"x\""), "boom")));
    RuntimeJobRecord failed = db.tx(h -> TestStores.runtimeJob(h, "run-1")).orElseThrow();
    assertThat(failed.job().status()).isEqualTo(RuntimeJobStatus.FAILED);
    assertThat(failed.job().attempts()).isEqualTo(2);
    assertThat(failed.job().repaired()).isTrue();
    assertThat(failed.job().progress()).containsExactly("requested", "failed: \"x\"");
    assertThat(failed.job().error()).isEqualTo("boom");
    assertThat(failed.startedAt()).isEqualTo(queued.startedAt());
    assertThat(failed.finishedAt()).isNotNull();
    assertThat(db.tx((Handle h) -> TestStores.runtimeJobsOf(h, "opencode-acp"))).containsExactly(failed);
  }
}
