package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.RuntimeJobRecord;
import dev.kandev.recovery.activities.store.RuntimeJobStore;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.runtime.RuntimeJobSnapshot;
import dev.kandev.recovery.workflows.runtime.RuntimeJobStatus;
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
    RuntimeJobStore jobs = new RuntimeJobStore(db.dataSource(), Json.mapper());

    jobs.save(snapshot(RuntimeJobStatus.QUEUED, 0, false, List.of("requested"), ""));
    RuntimeJobRecord queued = jobs.find("run-1").orElseThrow();
    assertThat(queued.status()).isEqualTo(RuntimeJobStatus.QUEUED);
    assertThat(queued.finishedAt()).isNull();

    jobs.save(snapshot(RuntimeJobStatus.FAILED, 2, true, List.of("requested", "failed: \"x\""), "boom"));
    jobs.save(snapshot(RuntimeJobStatus.FAILED, 2, true, List.of("requested", "failed: \"x\""), "boom"));
    RuntimeJobRecord failed = jobs.find("run-1").orElseThrow();
    assertThat(failed.status()).isEqualTo(RuntimeJobStatus.FAILED);
    assertThat(failed.attempts()).isEqualTo(2);
    assertThat(failed.repaired()).isTrue();
    assertThat(failed.progress()).containsExactly("requested", "failed: \"x\"");
    assertThat(failed.error()).isEqualTo("boom");
    assertThat(failed.startedAt()).isEqualTo(queued.startedAt());
    assertThat(failed.finishedAt()).isNotNull();
    assertThat(jobs.forAgent("opencode-acp")).containsExactly(failed);
  }
}
