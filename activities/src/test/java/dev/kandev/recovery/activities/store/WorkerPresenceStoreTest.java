package dev.kandev.recovery.activities.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class WorkerPresenceStoreTest {
  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void aBeatRenewsTheInstancesRowAndLeavingRemovesIt() {
    WorkerPresenceStore presence = new WorkerPresenceStore();
    db.run(h -> presence.beat(h, "w-1", "host-a"));
    db.fixtures().exec("UPDATE worker_presence SET last_seen_at = now() - interval '5 minutes'");

    db.run(h -> presence.beat(h, "w-1", "host-a"));

    assertThat(db.fixtures().count("SELECT count(*) FROM worker_presence")).isEqualTo(1);
    assertThat(db.fixtures().count(
        "SELECT count(*) FROM worker_presence WHERE last_seen_at > now() - interval '1 minute'")).isEqualTo(1);
    db.run(h -> presence.leave(h, "w-1"));
    db.run(h -> presence.leave(h, "w-1"));
    assertThat(db.fixtures().count("SELECT count(*) FROM worker_presence")).isZero();
  }

  @Test
  void instancesGoneForADayAreForgotten() {
    WorkerPresenceStore presence = new WorkerPresenceStore();
    db.run(h -> presence.beat(h, "crashed-long-ago", "host-a"));
    db.run(h -> presence.beat(h, "crashed-an-hour-ago", "host-a"));
    db.fixtures().exec("UPDATE worker_presence SET last_seen_at = now() - interval '2 days'"
        + " WHERE worker_instance = 'crashed-long-ago'");
    db.fixtures().exec("UPDATE worker_presence SET last_seen_at = now() - interval '1 hour'"
        + " WHERE worker_instance = 'crashed-an-hour-ago'");

    db.run(h -> presence.beat(h, "w-2", "host-a"));

    assertThat(db.fixtures().strings("SELECT worker_instance FROM worker_presence ORDER BY 1"))
        .containsExactly("crashed-an-hour-ago", "w-2");
  }
}
