package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.model.TaskState;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Update;

/**
 * Reads sessions and changes their state only through guarded, compare-and-set transitions that
 * publish a {@code session_events} row (and a {@code pg_notify}) in the same transaction. There is
 * no unguarded state write. Every method runs on the caller's transaction {@link Handle}.
 */
public final class MirrorSessionStore implements SessionStore {

  /** Keys a guarded metadata write may set; {@code acp} belongs to {@link SessionIdentityStore}. */

  private static final RowMapper<LockedSession> LOCKED_SESSION =
      (rs, ctx) -> new LockedSession(rs.getString("task_id"), SessionState.parse(rs.getString("state")));

  private final RowMapper<SessionRecord> sessionRecord;
  private final TaskStore tasks = new TaskStore();

  public MirrorSessionStore(ObjectMapper json) {
    this.sessionRecord = (rs, ctx) -> new SessionRecord(
        rs.getString("id"),
        rs.getString("task_id"),
        rs.getString("agent_id"),
        rs.getString("workspace_path"),
        SessionState.parse(rs.getString("state")),
        rs.getString("error_message"),
        metadata(json, rs.getString("id"), rs.getString("metadata")),
        rs.getTimestamp("updated_at").toInstant(),
        rs.getString("executor_host"));
  }

  public Optional<SessionRecord> find(Handle h, String sessionId) {
    return h.createQuery("SELECT id, task_id, agent_id, workspace_path, state, error_message,"
            + " metadata::text AS metadata, updated_at, executor_host FROM task_sessions WHERE id = :id")
        .bind("id", sessionId)
        .map(sessionRecord)
        .findOne();
  }

  /**
   * Binds a session not bound to a host yet to {@code host}; a bound session keeps its host. Returns
   * the session's host after the call.
   */
  public String bindHost(Handle h, String sessionId, String host) {
    return h.createQuery("UPDATE task_sessions SET executor_host = CASE WHEN executor_host = '' THEN :host"
            + " ELSE executor_host END WHERE id = :id RETURNING executor_host")
        .bind("host", host)
        .bind("id", sessionId)
        .mapTo(String.class)
        .findOne()
        .orElseThrow(() -> new UnknownSessionException(sessionId));
  }

  @Override
  public SessionRecord get(Handle h, String sessionId) {
    return find(h, sessionId).orElseThrow(() -> new UnknownSessionException(sessionId));
  }

  /** The session's task and state, its row locked until the transaction ends. */
  record LockedSession(String taskId, SessionState state) {}

  /**
   * Locks the session's row ({@code FOR UPDATE}) for the rest of the transaction: the one place a
   * writer serialises with every other writer of the session.
   *
   * @throws UnknownSessionException no such session
   */
  static LockedSession lockRow(Handle h, String sessionId) {
    return h.createQuery("SELECT task_id, state FROM task_sessions WHERE id = :id FOR UPDATE")
        .bind("id", sessionId)
        .map(LOCKED_SESSION)
        .findOne()
        .orElseThrow(() -> new UnknownSessionException(sessionId));
  }

  /** Locks the session's row for the rest of the transaction and returns its state. */
  public SessionState lockState(Handle h, String sessionId) {
    return lockRow(h, sessionId).state();
  }

  /**
   * Moves the session from one of {@code expected} to {@code target} if, and only if, it is in one of
   * them now (and, for a fenced write, its resume lock still carries the fence). Terminal states stay
   * terminal: only a resume may leave FAILED or CANCELLED, towards STARTING; COMPLETED never changes.
   */
  public TransitionResult transition(
      Handle h,
      String sessionId,
      Set<SessionState> expected,
      SessionState target,
      String reason,
      String errorMessage,
      Fence fence) {
    validateTransition(expected, target);
    LockedSession row = lockRow(h, sessionId);
    Optional<TransitionResult.Outcome> refused = LockedWriteGuard.refusal(h, sessionId, row.state(), expected, fence);
    if (refused.isPresent()) {
      return new TransitionResult(refused.get(), row.state(), row.state());
    }
    // The compare-and-set itself; the locked read above only explains a loss.
    int updated = h.createUpdate("UPDATE task_sessions s SET state = :target, error_message = :error,"
            + " updated_at = now(), completed_at = CASE WHEN :terminal THEN now() END,"
            + " resume_fence = CASE WHEN :starting AND :fence > 0 THEN :fence ELSE s.resume_fence END"
            + " WHERE s.id = :id AND s.state = ANY(:expected) AND " + ResumeLockStore.FENCE_HELD_ON_S)
        .bind("target", target.name())
        .bind("error", sessionErrorMessage(target, errorMessage))
        .bind("terminal", target.isTerminal())
        .bind("starting", target == SessionState.STARTING)
        .bind("id", sessionId)
        .bindArray("expected", String.class, names(expected))
        .bind("fence", fence.token())
        .execute();
    if (updated != 1) {
      throw new IllegalStateException("compare-and-set on a locked row of session " + sessionId + " lost; this is a bug");
    }
    publish(h, sessionId, row.taskId(), row.state(), target, reason, errorMessage);
    return new TransitionResult(TransitionResult.Outcome.APPLIED, row.state(), target);
  }

  /**
   * Settles the session at WAITING_FOR_INPUT and its task in REVIEW (the Turn Finished bucket), both
   * or neither: the session moves from one of {@code expected} as {@link #transition} does and, only
   * if it moved, the task moves from one of {@code taskFrom}. The session row is locked before the
   * task row, as by every writer of both, so two settles never wait on each other in a cycle.
   */
  public TransitionResult settle(
      Handle h,
      String sessionId,
      Set<SessionState> expected,
      Set<TaskState> taskFrom,
      String reason,
      String errorMessage,
      Fence fence) {
    TransitionResult result =
        transition(h, sessionId, expected, SessionState.WAITING_FOR_INPUT, reason, errorMessage, fence);
    if (result.won()) {
      tasks.transitionTaskOf(h, sessionId, taskFrom, TaskState.REVIEW);
    }
    return result;
  }

  /**
   * Sets (or with a {@code null} value removes) the top-level metadata entry {@code key} if the
   * session is in one of {@code expected} and, for a fenced write, still under that lock.
   */
  public GuardedWriteResult writeMetadataEntry(
      Handle h, String sessionId, String key, JsonNode value, Set<SessionState> expected, Fence fence) {
    LockedWriteGuard.requireWritableMetadataEntry(key, expected);
    LockedSession row = lockRow(h, sessionId);
    return LockedWriteGuard.write(h, sessionId, row.state(), expected, fence, () -> {
      Update update = h.createUpdate("UPDATE task_sessions s SET "
              + (value == null ? "metadata = metadata - :key::text"
                  : "metadata = jsonb_set(metadata, ARRAY[:key::text], :value::jsonb, true)")
              + ", updated_at = now() WHERE s.id = :id AND s.state = ANY(:expected) AND " + ResumeLockStore.FENCE_HELD_ON_S)
          .bind("key", key)
          .bind("id", sessionId)
          .bindArray("expected", String.class, names(expected))
          .bind("fence", fence.token());
      if (value != null) {
        update.bind("value", value.toString());
      }
      return update;
    });
  }

  /**
   * Keeps the session's credential snapshot as it is now (none: SQL NULL) as the one from before the
   * resume of {@code fence}, once per fence, while the session is STARTING under that resume's lock:
   * call it in the transaction that replaces the snapshot, before the write.
   */
  public void keepCredentialSnapshotBeforeResume(Handle h, String sessionId, Fence fence) {
    h.createUpdate("UPDATE task_sessions s SET snapshot_before_resume = s.metadata -> :key,"
            + " snapshot_before_resume_fence = :fence WHERE s.id = :id AND s.state = 'STARTING'"
            + " AND s.snapshot_before_resume_fence IS DISTINCT FROM :fence AND " + ResumeLockStore.FENCE_HELD_ON_S)
        .bind("key", CREDENTIAL_SNAPSHOT_KEY)
        .bind("id", sessionId)
        .bind("fence", fence.token())
        .execute();
  }

  /**
   * Puts back the credential snapshot kept by {@link #keepCredentialSnapshotBeforeResume} under
   * {@code fence}, byte for byte (none kept: the entry is removed), if the session is in one of
   * {@code expected} and still under that lock. Empty if nothing was kept under {@code fence}.
   */
  public Optional<GuardedWriteResult> restoreCredentialSnapshotBeforeResume(
      Handle h, String sessionId, Set<SessionState> expected, Fence fence) {
    LockedSession row = lockRow(h, sessionId);
    return LockedWriteGuard.restoreKeptSnapshot(h, sessionId, row.state(), expected, fence,
        "SELECT snapshot_before_resume_fence = :fence FROM task_sessions WHERE id = :id",
        () -> h.createUpdate("UPDATE task_sessions SET metadata = CASE WHEN snapshot_before_resume IS NULL THEN metadata - :key"
              + " ELSE jsonb_set(metadata, ARRAY[:key::text], snapshot_before_resume, true) END, updated_at = now()"
              + " WHERE id = :id")
          .bind("key", CREDENTIAL_SNAPSHOT_KEY)
          .bind("id", sessionId)
          .execute());
  }

  /** The ids of the sessions that are in {@code state} now. */
  public List<String> idsIn(Handle h, SessionState state) {
    return h.createQuery("SELECT id FROM task_sessions WHERE state = :state ORDER BY id")
        .bind("state", state.name())
        .mapTo(String.class)
        .list();
  }

  /**
   * Whether the resume of {@code fence} is the one that last moved the session to STARTING: a step
   * that runs again recognises its own earlier write by it, also once the lock is released.
   */
  public boolean lastStartedUnder(Handle h, String sessionId, Fence fence) {
    return !fence.isNone() && h.createQuery("SELECT COALESCE(resume_fence = :fence, false) FROM task_sessions WHERE id = :id")
        .bind("id", sessionId)
        .bind("fence", fence.token())
        .mapTo(Boolean.class)
        .findOne()
        .orElse(false);
  }

  /** The state the session left when it last entered {@code entered}, from its published events. */
  public Optional<SessionState> stateBeforeLast(Handle h, String sessionId, SessionState entered) {
    return stateBeforeLastFromEvents(h, sessionId, entered);
  }

  /** The state the session left when it last entered {@code entered}, from our {@code session_events} (both layouts). */
  public static Optional<SessionState> stateBeforeLastFromEvents(Handle h, String sessionId, SessionState entered) {
    return h.createQuery("SELECT from_state FROM session_events WHERE session_id = :id AND to_state = :entered"
            + " ORDER BY id DESC LIMIT 1")
        .bind("id", sessionId)
        .bind("entered", entered.name())
        .mapTo(String.class)
        .findOne()
        .map(SessionState::parse);
  }

  /**
   * What the session row keeps of a transition's error: all of it on a {@code FAILED} session, only
   * its first line on any other (a restored {@code WAITING_FOR_INPUT} session shows one line; the
   * whole text, an agent's stderr tail included, stays in our {@code session_events}).
   */
  public static String sessionErrorMessage(SessionState target, String errorMessage) {
    if (errorMessage == null) {
      return "";
    }
    if (target == SessionState.FAILED) {
      return errorMessage;
    }
    int newline = errorMessage.indexOf('\n');
    return (newline < 0 ? errorMessage : errorMessage.substring(0, newline)).stripTrailing();
  }

  /** Rejects transitions no caller may ask for, before anything is read or written. */
  public static void validateTransition(Collection<SessionState> expected, SessionState target) {
    if (expected.isEmpty()) {
      throw new IllegalArgumentException("a guarded transition needs at least one expected state");
    }
    if (expected.contains(target)) {
      throw new IllegalArgumentException("a transition to " + target + " cannot expect " + target);
    }
    if (expected.contains(SessionState.COMPLETED)) {
      throw new IllegalArgumentException("a COMPLETED session never changes state");
    }
    Set<SessionState> terminal = EnumSet.copyOf(expected);
    terminal.retainAll(SessionState.TERMINAL);
    if (!terminal.isEmpty() && target != SessionState.STARTING) {
      throw new IllegalArgumentException(
          "a " + terminal + " session only leaves its state through a resume to STARTING, not " + target);
    }
  }

  public static void publish(
      Handle h, String sessionId, String taskId, SessionState from, SessionState to, String reason, String errorMessage) {
    h.createQuery("WITH e AS (INSERT INTO session_events (session_id, task_id, from_state, to_state, reason, error_message)"
            + " VALUES (:sessionId, :taskId, :from, :to, :reason, :error)"
            + " RETURNING id, session_id, task_id, from_state, to_state, reason, at)"
            + " SELECT pg_notify(:channel, json_build_object('id', e.id, 'schema', current_schema(),"
            + " 'sessionId', e.session_id, 'taskId', e.task_id, 'from', e.from_state, 'to', e.to_state,"
            + " 'reason', e.reason, 'at', e.at)::text) FROM e")
        .bind("sessionId", sessionId)
        .bind("taskId", taskId)
        .bind("from", from.name())
        .bind("to", to.name())
        .bind("reason", reason == null ? "" : reason)
        .bind("error", errorMessage == null ? "" : errorMessage)
        .bind("channel", EVENTS_CHANNEL)
        .mapTo(String.class)
        .list();
  }

  private static ObjectNode metadata(ObjectMapper json, String sessionId, String text) {
    try {
      return (ObjectNode) json.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("metadata of session " + sessionId + " is not JSON", e);
    }
  }

  private static List<String> names(Collection<SessionState> states) {
    return states.stream().map(Enum::name).toList();
  }
}
