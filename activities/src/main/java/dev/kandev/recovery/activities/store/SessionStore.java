package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.model.TaskState;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/**
 * Reads sessions and changes their state only through guarded, compare-and-set transitions that
 * publish our {@code session_events} row (and a {@code pg_notify}) in the same transaction. There is
 * no unguarded state write. Every method runs on the caller's transaction {@link Handle}. Two
 * layouts ({@link StoreLayout}): {@link MirrorSessionStore} on our mirror of Kandev's tables,
 * {@code kandev.KandevSessionStore} on Kandev's own.
 */
public interface SessionStore {
  String EVENTS_CHANNEL = "session_events";
  /** The metadata entry of the non-secret git credential routing snapshot. */
  String CREDENTIAL_SNAPSHOT_KEY = "git_credential_snapshot";

  Optional<SessionRecord> find(Handle h, String sessionId);

  default SessionRecord get(Handle h, String sessionId) {
    return find(h, sessionId).orElseThrow(() -> new UnknownSessionException(sessionId));
  }

  /**
   * Binds a session not bound to a host yet to {@code host}; a bound session keeps its host. Returns
   * the session's host after the call.
   */
  String bindHost(Handle h, String sessionId, String host);

  /** Locks the session's row for the rest of the transaction and returns its state. */
  SessionState lockState(Handle h, String sessionId);

  /**
   * Moves the session from one of {@code expected} to {@code target} if, and only if, it is in one of
   * them now (and, for a fenced write, its resume lock still carries the fence). Terminal states stay
   * terminal: only a resume may leave FAILED or CANCELLED, towards STARTING; COMPLETED never changes.
   */
  TransitionResult transition(Handle h, String sessionId, Set<SessionState> expected, SessionState target,
      String reason, String errorMessage, Fence fence);

  /**
   * Settles the session at WAITING_FOR_INPUT and its task in REVIEW (the Turn Finished bucket), both
   * or neither: the session moves from one of {@code expected} as {@link #transition} does and, only
   * if it moved, the task moves from one of {@code taskFrom}.
   */
  TransitionResult settle(Handle h, String sessionId, Set<SessionState> expected, Set<TaskState> taskFrom,
      String reason, String errorMessage, Fence fence);

  /**
   * Sets (or with a {@code null} value removes) the top-level metadata entry {@code key} if the
   * session is in one of {@code expected} and, for a fenced write, still under that lock. Other keys
   * are left as they are.
   */
  GuardedWriteResult writeMetadataEntry(
      Handle h, String sessionId, String key, JsonNode value, Set<SessionState> expected, Fence fence);

  /**
   * Keeps the session's credential snapshot as it is now (none: SQL NULL) as the one from before the
   * resume of {@code fence}, once per fence, while the session is STARTING under that resume's lock:
   * call it in the transaction that replaces the snapshot, before the write.
   */
  void keepCredentialSnapshotBeforeResume(Handle h, String sessionId, Fence fence);

  /**
   * Puts back the credential snapshot kept by {@link #keepCredentialSnapshotBeforeResume} under
   * {@code fence}, exactly (none kept: the entry is removed), if the session is in one of {@code
   * expected} and still under that lock. Empty if nothing was kept under {@code fence}.
   */
  Optional<GuardedWriteResult> restoreCredentialSnapshotBeforeResume(
      Handle h, String sessionId, Set<SessionState> expected, Fence fence);

  /** The ids of the sessions that are in {@code state} now. */
  List<String> idsIn(Handle h, SessionState state);

  /**
   * Whether the resume of {@code fence} is the one that last moved the session to STARTING: a step
   * that runs again recognises its own earlier write by it, also once the lock is released.
   */
  boolean lastStartedUnder(Handle h, String sessionId, Fence fence);

  /**
   * The state our last published transition of the session moved it to (our {@code session_events},
   * both layouts): a state the session has now that differs came from another writer.
   */
  default Optional<SessionState> lastEnteredByUs(Handle h, String sessionId) {
    return h.createQuery("SELECT to_state FROM session_events WHERE session_id = :id ORDER BY id DESC LIMIT 1")
        .bind("id", sessionId)
        .mapTo(String.class)
        .findOne()
        .map(SessionState::parse);
  }

  /** The state the session left when it last entered {@code entered}, from our published events. */
  Optional<SessionState> stateBeforeLast(Handle h, String sessionId, SessionState entered);
}
