package dev.kandev.recovery.activities.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import org.jdbi.v3.core.Handle;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The two stores the agent host writes: executors_running (never the token) and the transcript. */
class AcpStoresTest {
  private static final String SESSION = "s-1";
  private static final String TOKEN = "sess_token";

  @RegisterExtension final TestDatabase db = new TestDatabase();
  private final ExecutorsRunningStore executors = new MirrorExecutorsRunningStore();
  private final SessionIdentityStore identities = new MirrorSessionIdentityStore();
  private final ResumeLockStore locks = new ResumeLockStore();

  @Test
  void executorRecordsNeverTouchTheResumeToken() {
    db.fixtures().sessionWithToken(SESSION, SessionState.FAILED, TOKEN);

    db.run(h -> executors.recordStarting(h, SESSION, "e-1", "h", "w", 42));
    db.tx(h -> executors.markRunning(h, SESSION, "e-1", Fence.none()));
    db.tx(h -> executors.markExited(h, SESSION, "e-1", "failed", "boom"));
    db.run(h -> executors.recordStartFailure(h, SESSION, "e-2", "h", "w", "cannot start"));

    assertThat(db.tx((Handle h) -> identities.read(h, SESSION))).isEqualTo(new SessionIdentity(TOKEN, TOKEN));
    assertThat(db.tx((Handle h) -> executors.find(h, SESSION))).hasValue(new ExecutorRecord(SESSION, "e-2", "h", "w", null, "failed", "cannot start"));
  }

  @Test
  void aResumeWithdrawsOnlyTheLaunchItMadeUnderItsLock() {
    db.fixtures().sessionWithToken(SESSION, SessionState.FAILED, TOKEN);
    // A claim older than the resume (say, a gone worker's agent): not this resume's launch.
    db.run(h -> executors.recordStarting(h, SESSION, "e-old", "h", "gone-worker", 41));
    db.tx(h -> executors.markRunning(h, SESSION, "e-old", Fence.none()));
    db.fixtures().exec("UPDATE executors_running SET last_seen_at = now() - interval '1 minute' WHERE session_id = ?",
        SESSION);
    db.tx(h -> locks.acquire(h, SESSION, "resume-1", java.time.Duration.ofMinutes(5))).orElseThrow();

    assertThat(db.tx((Handle h) -> executors.withdrawLaunch(h, SESSION, "resume-1", "withdrawn"))).isEmpty();
    assertThat(db.tx((Handle h) -> executors.find(h, SESSION)).orElseThrow().status()).isEqualTo("running");

    db.run(h -> executors.recordStarting(h, SESSION, "e-1", "h", "worker-a", 42));
    assertThat(db.tx((Handle h) -> executors.withdrawLaunch(h, SESSION, "another-resume", "withdrawn"))).as("not its lock").isEmpty();
    assertThat(db.tx((Handle h) -> executors.withdrawLaunch(h, SESSION, "resume-1", "launch withdrawn"))).hasValue(
        new ExecutorRecord(SESSION, "e-1", "h", "worker-a", 42L, "failed", "launch withdrawn"));
    assertThat(db.tx((Handle h) -> executors.markRunning(h, SESSION, "e-1", Fence.none()))).as("a withdrawn launch cannot complete").isFalse();
    assertThat(db.tx((Handle h) -> executors.liveOwnerOtherThan(h, SESSION, "worker-b"))).isEmpty();
    assertThat(db.tx((Handle h) -> new MirrorSessionIdentityStore().read(h, SESSION))).isEqualTo(new SessionIdentity(TOKEN, TOKEN));
  }

  @Test
  void aRowCreatedByTheHostStartsWithoutAToken() {
    db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", "a", SessionState.STARTING, "{}");

    db.run(h -> executors.recordStarting(h, SESSION, "e-1", "h", "w", 42));

    assertThat(db.tx((Handle h) -> new MirrorSessionIdentityStore().read(h, SESSION))).isEqualTo(new SessionIdentity("", ""));
    assertThat(db.tx((Handle h) -> TestStores.claimedBy(h, "h", "w"))).extracting(ExecutorRecord::pid).containsExactly(42L);
  }

  @Test
  void exitOfAReplacedExecutionLeavesTheNewOneAlone() {
    db.fixtures().sessionWithToken(SESSION, SessionState.RUNNING, TOKEN);
    db.run(h -> executors.recordStarting(h, SESSION, "old", "h", "w", 1));
    db.run(h -> executors.recordStarting(h, SESSION, "new", "h", "w", 2));

    assertThat(db.tx((Handle h) -> executors.markExited(h, SESSION, "old", "failed", "late exit"))).isFalse();

    assertThat(db.tx((Handle h) -> executors.find(h, SESSION)).orElseThrow().status()).isEqualTo("starting");
    assertThat(db.tx((Handle h) -> executors.find(h, SESSION)).orElseThrow().pid()).isEqualTo(2L);
  }

  @Test
  void replayIsMatchedAgainstThePersistedTranscript() {
    db.fixtures().sessionWithToken(SESSION, SessionState.RUNNING, TOKEN);
    TranscriptStore transcript = new MirrorTranscriptStore();
    db.tx(h -> TestStores.appendLive(h, SESSION, List.of(new TranscriptMessage("user", "ok", null))));
    db.tx(h -> TestStores.appendLive(h, SESSION, List.of(new TranscriptMessage("agent", "done", "m1"))));
    db.tx(h -> TestStores.appendLive(h, SESSION, List.of(new TranscriptMessage("user", "ok", null))));

    int inserted = db.tx(h -> transcript.recordReplay(h, SESSION, List.of(
        new TranscriptMessage("user", "ok", "agent-id-u1"),
        new TranscriptMessage("agent", "done", "m1"),
        new TranscriptMessage("user", "ok", "agent-id-u2"),
        new TranscriptMessage("agent", "new reply", "m2"))));
    int again = db.tx(h -> transcript.recordReplay(h, SESSION, List.of(
        new TranscriptMessage("user", "ok", "agent-id-u2"), new TranscriptMessage("agent", "new reply", "m2"))));

    assertThat(inserted).isEqualTo(1);
    assertThat(again).isZero();
    assertThat(db.tx((Handle h) -> TestStores.transcript(h, SESSION))).extracting(TranscriptEntry::ordinal, TranscriptEntry::content)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "ok"), org.assertj.core.groups.Tuple.tuple(2, "done"),
            org.assertj.core.groups.Tuple.tuple(3, "ok"), org.assertj.core.groups.Tuple.tuple(4, "new reply"));
  }

  @Test
  void identicalLiveMessagesAreKeptApart() {
    db.fixtures().sessionWithToken(SESSION, SessionState.RUNNING, TOKEN);

    db.tx(h -> TestStores.appendLive(h, SESSION, List.of(new TranscriptMessage("user", "again", null))));
    db.tx(h -> TestStores.appendLive(h, SESSION, List.of(new TranscriptMessage("user", "again", null))));

    assertThat(db.tx((Handle h) -> TestStores.transcript(h, SESSION))).extracting(TranscriptEntry::dedupeKey).doesNotHaveDuplicates().hasSize(2);
  }

  /**
   * An execution that ended — exited, lost with its gone worker, or replaced by a new launch — takes
   * its credential leases with it; a lease minted since, for a launch under way, stays live.
   */
  @Test
  void theLeasesOfAnEndedExecutionAreRevokedButNotThoseOfALaunchUnderWay() {
    db.fixtures().sessionWithToken(SESSION, SessionState.WAITING_FOR_INPUT, TOKEN);

    mintedLease("lease-1");
    db.run(h -> executors.recordStarting(h, SESSION, "e-1", "h", "w", 42));
    db.tx(h -> executors.markRunning(h, SESSION, "e-1", Fence.none()));
    mintedLease("lease-2"); // the next launch minted its lease; its process is not recorded yet
    db.tx(h -> executors.markExited(h, SESSION, "e-1", "failed", "boom"));
    assertThat(revoked()).containsExactly("lease-1");

    db.run(h -> executors.recordStarting(h, SESSION, "e-2", "h", "gone-worker", 43));
    db.tx(h -> executors.markRunning(h, SESSION, "e-2", Fence.none()));
    assertThat(revoked()).containsExactly("lease-1");
    mintedLease("lease-3");
    db.run(h -> executors.recordStarting(h, SESSION, "e-3", "h", "w", 44)); // replaces e-2
    assertThat(revoked()).containsExactly("lease-1", "lease-2");

    db.fixtures().exec("UPDATE task_sessions SET state = 'FAILED' WHERE id = ?", SESSION);
    assertThat(db.tx((Handle h) -> executors.markLostWithGoneWorkers(h, "h", "other"))).containsExactly(SESSION);
    assertThat(revoked()).containsExactly("lease-1", "lease-2", "lease-3");
  }

  private void mintedLease(String id) {
    db.fixtures().exec("INSERT INTO credential_leases (id, provider, workspace_id, task_id, session_id, repository_id,"
        + " host, path, binding, ttl_seconds, expires_at, created_at, minted_at)"
        + " SELECT ?, 'github', 'ws', task_id, id, 'r', 'github.com', 'acme/widgets', '{}', 3600,"
        + " now() + interval '1 hour', clock_timestamp(), clock_timestamp() FROM task_sessions WHERE id = ?", id, SESSION);
  }

  private List<String> revoked() {
    return db.fixtures().strings("SELECT id FROM credential_leases WHERE revoked_at IS NOT NULL ORDER BY id");
  }
}
