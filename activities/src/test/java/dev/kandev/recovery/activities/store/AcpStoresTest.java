package dev.kandev.recovery.activities.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.SessionState;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The two stores the agent host writes: executors_running (never the token) and the transcript. */
class AcpStoresTest {
  private static final String SESSION = "s-1";
  private static final String TOKEN = "sess_token";

  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void executorRecordsNeverTouchTheResumeToken() {
    db.fixtures().sessionWithToken(SESSION, SessionState.FAILED, TOKEN);
    ExecutorsRunningStore executors = new ExecutorsRunningStore(db.dataSource());
    SessionIdentityStore identities = new SessionIdentityStore(db.dataSource());

    executors.recordStarting(SESSION, "e-1", "h", "w", 42);
    executors.markRunning(SESSION, "e-1", Fence.none());
    executors.markExited(SESSION, "e-1", "failed", "boom");
    executors.recordStartFailure(SESSION, "e-2", "h", "w", "cannot start");

    assertThat(identities.read(SESSION)).isEqualTo(new SessionIdentity(TOKEN, TOKEN));
    assertThat(executors.find(SESSION)).hasValue(new ExecutorRecord(SESSION, "e-2", "h", "w", null, "failed", "cannot start"));
  }

  @Test
  void aResumeWithdrawsOnlyTheLaunchItMadeUnderItsLock() {
    db.fixtures().sessionWithToken(SESSION, SessionState.FAILED, TOKEN);
    ExecutorsRunningStore executors = new ExecutorsRunningStore(db.dataSource());
    ResumeLockStore locks = new ResumeLockStore(db.dataSource());
    // A claim older than the resume (say, a gone worker's agent): not this resume's launch.
    executors.recordStarting(SESSION, "e-old", "h", "gone-worker", 41);
    executors.markRunning(SESSION, "e-old", Fence.none());
    db.fixtures().exec("UPDATE executors_running SET last_seen_at = now() - interval '1 minute' WHERE session_id = ?",
        SESSION);
    locks.acquire(SESSION, "resume-1", java.time.Duration.ofMinutes(5)).orElseThrow();

    assertThat(executors.withdrawLaunch(SESSION, "resume-1", "withdrawn")).isEmpty();
    assertThat(executors.find(SESSION).orElseThrow().status()).isEqualTo("running");

    executors.recordStarting(SESSION, "e-1", "h", "worker-a", 42);
    assertThat(executors.withdrawLaunch(SESSION, "another-resume", "withdrawn")).as("not its lock").isEmpty();
    assertThat(executors.withdrawLaunch(SESSION, "resume-1", "launch withdrawn")).hasValue(
        new ExecutorRecord(SESSION, "e-1", "h", "worker-a", 42L, "failed", "launch withdrawn"));
    assertThat(executors.markRunning(SESSION, "e-1", Fence.none())).as("a withdrawn launch cannot complete").isFalse();
    assertThat(executors.liveOwnerOtherThan(SESSION, "worker-b")).isEmpty();
    assertThat(new SessionIdentityStore(db.dataSource()).read(SESSION)).isEqualTo(new SessionIdentity(TOKEN, TOKEN));
  }

  @Test
  void aRowCreatedByTheHostStartsWithoutAToken() {
    db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", "a", SessionState.STARTING, "{}");
    ExecutorsRunningStore executors = new ExecutorsRunningStore(db.dataSource());

    executors.recordStarting(SESSION, "e-1", "h", "w", 42);

    assertThat(new SessionIdentityStore(db.dataSource()).read(SESSION)).isEqualTo(new SessionIdentity("", ""));
    assertThat(executors.claimedBy("h", "w")).extracting(ExecutorRecord::pid).containsExactly(42L);
  }

  @Test
  void exitOfAReplacedExecutionLeavesTheNewOneAlone() {
    db.fixtures().sessionWithToken(SESSION, SessionState.RUNNING, TOKEN);
    ExecutorsRunningStore executors = new ExecutorsRunningStore(db.dataSource());
    executors.recordStarting(SESSION, "old", "h", "w", 1);
    executors.recordStarting(SESSION, "new", "h", "w", 2);

    assertThat(executors.markExited(SESSION, "old", "failed", "late exit")).isFalse();

    assertThat(executors.find(SESSION).orElseThrow().status()).isEqualTo("starting");
    assertThat(executors.find(SESSION).orElseThrow().pid()).isEqualTo(2L);
  }

  @Test
  void replayIsMatchedAgainstThePersistedTranscript() {
    db.fixtures().sessionWithToken(SESSION, SessionState.RUNNING, TOKEN);
    TranscriptStore transcript = new TranscriptStore(db.dataSource());
    transcript.appendLive(SESSION, List.of(new TranscriptMessage("user", "ok", null)));
    transcript.appendLive(SESSION, List.of(new TranscriptMessage("agent", "done", "m1")));
    transcript.appendLive(SESSION, List.of(new TranscriptMessage("user", "ok", null)));

    int inserted = transcript.recordReplay(SESSION, List.of(
        new TranscriptMessage("user", "ok", "agent-id-u1"),
        new TranscriptMessage("agent", "done", "m1"),
        new TranscriptMessage("user", "ok", "agent-id-u2"),
        new TranscriptMessage("agent", "new reply", "m2")));
    int again = transcript.recordReplay(SESSION, List.of(
        new TranscriptMessage("user", "ok", "agent-id-u2"), new TranscriptMessage("agent", "new reply", "m2")));

    assertThat(inserted).isEqualTo(1);
    assertThat(again).isZero();
    assertThat(transcript.list(SESSION)).extracting(TranscriptEntry::ordinal, TranscriptEntry::content)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "ok"), org.assertj.core.groups.Tuple.tuple(2, "done"),
            org.assertj.core.groups.Tuple.tuple(3, "ok"), org.assertj.core.groups.Tuple.tuple(4, "new reply"));
  }

  @Test
  void identicalLiveMessagesAreKeptApart() {
    db.fixtures().sessionWithToken(SESSION, SessionState.RUNNING, TOKEN);
    TranscriptStore transcript = new TranscriptStore(db.dataSource());

    transcript.appendLive(SESSION, List.of(new TranscriptMessage("user", "again", null)));
    transcript.appendLive(SESSION, List.of(new TranscriptMessage("user", "again", null)));

    assertThat(transcript.list(SESSION)).extracting(TranscriptEntry::dedupeKey).doesNotHaveDuplicates().hasSize(2);
  }
}
