package dev.kandev.recovery.activities.store.kandev;

import static dev.kandev.recovery.activities.store.kandev.KandevTables.UTC_NOW;
import static dev.kandev.recovery.activities.store.kandev.KandevTables.metadata;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.activities.store.GuardedWriteResult;
import dev.kandev.recovery.activities.store.LockedWriteGuard;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.SessionRecord;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TransitionResult;
import dev.kandev.recovery.activities.store.UnknownSessionException;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.model.TaskState;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Update;

/**
 * The session store on Kandev's own {@code tasks} and {@code task_sessions}, with Kandev's types and
 * guards: a state change is Kandev's compare-and-set ({@code WHERE id = ? AND state = ?}), metadata
 * is Kandev's JSON text changed one key at a time with {@code jsonb_set(…)::text}, timestamps are
 * the naive UTC wall clock. A writer locks the task row before the session row, as Kandev does.
 * What the mirror keeps in extra columns (the host, the last resume's fence, the snapshot kept for
 * a restore) is in our {@code kandev_session_resumes}; our {@code session_events} are written as in
 * the mirror, and each state change also goes to the {@link KandevEventOutbox}.
 */
public final class KandevSessionStore implements SessionStore {

  private final KandevTables k;
  private final ObjectMapper json;
  private final KandevEventOutbox outbox;

  public KandevSessionStore(StoreLayout layout, ObjectMapper json, KandevEventOutbox outbox) {
    this.k = new KandevTables(layout);
    this.json = json;
    this.outbox = outbox;
  }

  /** The session's task and its state, both rows locked until the transaction ends. */
  record LockedSession(String taskId, SessionState state) {}

  @Override
  public Optional<SessionRecord> find(Handle h, String sessionId) {
    return h.createQuery(k.sql("SELECT s.id, s.task_id, COALESCE(s.agent_profile_id, '') AS agent_id,"
            + " COALESCE(s.workspace_path, '') AS workspace_path, s.state, COALESCE(s.error_message, '') AS error_message,"
            + " " + metadata("s") + "::text AS metadata, s.updated_at AT TIME ZONE 'UTC' AS updated_at,"
            + " COALESCE(r.executor_host, '') AS executor_host"
            + " FROM {k}.task_sessions s LEFT JOIN kandev_session_resumes r ON r.session_id = s.id WHERE s.id = :id"))
        .bind("id", sessionId)
        .map((rs, ctx) -> new SessionRecord(rs.getString("id"), rs.getString("task_id"), rs.getString("agent_id"),
            rs.getString("workspace_path"), SessionState.parse(rs.getString("state")), rs.getString("error_message"),
            object(rs.getString("id"), rs.getString("metadata")), rs.getTimestamp("updated_at").toInstant(),
            rs.getString("executor_host")))
        .findOne();
  }

  @Override
  public String bindHost(Handle h, String sessionId, String host) {
    return h.createQuery(k.sql("INSERT INTO kandev_session_resumes AS r (session_id, executor_host)"
            + " SELECT id, :host FROM {k}.task_sessions WHERE id = :id"
            + " ON CONFLICT (session_id) DO UPDATE SET executor_host = CASE WHEN r.executor_host = ''"
            + " THEN EXCLUDED.executor_host ELSE r.executor_host END RETURNING executor_host"))
        .bind("host", host)
        .bind("id", sessionId)
        .mapTo(String.class)
        .findOne()
        .orElseThrow(() -> new UnknownSessionException(sessionId));
  }

  /**
   * Locks the session's task row and then the session's row ({@code FOR NO KEY UPDATE}, which Kandev's
   * {@code SELECT … FOR UPDATE} on the task and its state writes wait for, but its inserts of a
   * session's messages and turns do not) for the rest of the transaction: Kandev's lock order, so a
   * writer of ours and one of Kandev's never wait on each other in a cycle.
   *
   * @throws UnknownSessionException no such session
   */
  LockedSession lockRow(Handle h, String sessionId) {
    String taskId = h.createQuery(k.sql("SELECT task_id FROM {k}.task_sessions WHERE id = :id"))
        .bind("id", sessionId)
        .mapTo(String.class)
        .findOne()
        .orElseThrow(() -> new UnknownSessionException(sessionId));
    h.createQuery(k.sql("SELECT 1 FROM {k}.tasks WHERE id = :taskId FOR NO KEY UPDATE"))
        .bind("taskId", taskId)
        .mapTo(Integer.class)
        .list();
    return h.createQuery(k.sql("SELECT task_id, state FROM {k}.task_sessions WHERE id = :id FOR NO KEY UPDATE"))
        .bind("id", sessionId)
        .map((rs, ctx) -> new LockedSession(rs.getString("task_id"), SessionState.parse(rs.getString("state"))))
        .findOne()
        .filter(locked -> locked.taskId().equals(taskId))
        .orElseThrow(() -> new UnknownSessionException(sessionId));
  }

  @Override
  public SessionState lockState(Handle h, String sessionId) {
    return lockRow(h, sessionId).state();
  }

  @Override
  public TransitionResult transition(Handle h, String sessionId, Set<SessionState> expected, SessionState target,
      String reason, String errorMessage, Fence fence) {
    MirrorSessionStore.validateTransition(expected, target);
    LockedSession row = lockRow(h, sessionId);
    return move(h, sessionId, row, expected, target, reason, errorMessage, fence);
  }

  private TransitionResult move(Handle h, String sessionId, LockedSession row, Set<SessionState> expected,
      SessionState target, String reason, String errorMessage, Fence fence) {
    Optional<TransitionResult.Outcome> refused = LockedWriteGuard.refusal(h, sessionId, row.state(), expected, fence);
    if (refused.isPresent()) {
      return new TransitionResult(refused.get(), row.state(), row.state());
    }
    // Kandev's compare-and-set, on the state the locked read saw.
    int updated = h.createUpdate(k.sql("UPDATE {k}.task_sessions s SET state = :target, error_message = :error,"
            + " updated_at = " + UTC_NOW + ", completed_at = CASE WHEN :terminal THEN " + UTC_NOW + " END"
            + " WHERE s.id = :id AND s.state = :observed AND " + ResumeLockStore.FENCE_HELD_ON_S))
        .bind("target", target.name())
        .bind("error", MirrorSessionStore.sessionErrorMessage(target, errorMessage))
        .bind("terminal", target.isTerminal())
        .bind("id", sessionId)
        .bind("observed", row.state().name())
        .bind("fence", fence.token())
        .execute();
    if (updated != 1) {
      throw new IllegalStateException("compare-and-set on a locked row of session " + sessionId + " lost; this is a bug");
    }
    if (target == SessionState.STARTING && !fence.isNone()) {
      h.createUpdate("INSERT INTO kandev_session_resumes AS r (session_id, resume_fence) VALUES (:id, :fence)"
              + " ON CONFLICT (session_id) DO UPDATE SET resume_fence = EXCLUDED.resume_fence")
          .bind("id", sessionId)
          .bind("fence", fence.token())
          .execute();
    }
    if (target == SessionState.STARTING || target == SessionState.RUNNING) {
      clearTaskMarkers(h, row.taskId());
    }
    MirrorSessionStore.publish(h, sessionId, row.taskId(), row.state(), target, reason, errorMessage);
    outbox.sessionStateChanged(h, sessionId, row.state().name());
    return new TransitionResult(TransitionResult.Outcome.APPLIED, row.state(), target);
  }

  /**
   * Work resumes: as Kandev's own transition into {@code STARTING}/{@code RUNNING} does ({@code
   * updateTaskSessionStateWithHook}: {@code clearTaskInterruptedMarker}, {@code
   * clearTaskAutoStartFailedMarker}), the task's {@code interrupted_at} and {@code auto_start_failed}
   * marks (the red "interrupted" icon, the failure badge) are removed, and the task republished
   * ({@code task.updated}) if one was there, before the session's event.
   */
  private void clearTaskMarkers(Handle h, String taskId) {
    int cleared = h.createUpdate(k.sql("UPDATE {k}.tasks t SET metadata = (" + metadata("t")
            + " - 'interrupted_at' - 'auto_start_failed')::text, updated_at = " + UTC_NOW
            + " WHERE t.id = :id AND jsonb_exists_any(" + metadata("t") + ", ARRAY['interrupted_at', 'auto_start_failed'])"))
        .bind("id", taskId)
        .execute();
    if (cleared == 1) {
      outbox.taskUpdated(h, taskId);
    }
  }

  @Override
  public TransitionResult settle(Handle h, String sessionId, Set<SessionState> expected, Set<TaskState> taskFrom,
      String reason, String errorMessage, Fence fence) {
    MirrorSessionStore.validateTransition(expected, SessionState.WAITING_FOR_INPUT);
    LockedSession row = lockRow(h, sessionId);
    TransitionResult result = move(h, sessionId, row, expected, SessionState.WAITING_FOR_INPUT, reason, errorMessage, fence);
    if (result.won()) {
      moveTask(h, row.taskId(), taskFrom, TaskState.REVIEW);
    }
    return result;
  }

  /** Kandev's task compare-and-set ({@code UpdateTaskStateIfCurrentIn}): from the state read, if it is expected. */
  private void moveTask(Handle h, String taskId, Set<TaskState> expected, TaskState target) {
    Optional<String> observed = h.createQuery(k.sql("SELECT state FROM {k}.tasks WHERE id = :id AND archived_at IS NULL"))
        .bind("id", taskId)
        .mapTo(String.class)
        .findOne();
    if (observed.isEmpty() || expected.stream().noneMatch(state -> state.name().equals(observed.get()))) {
      return;
    }
    int moved = h.createUpdate(k.sql("UPDATE {k}.tasks SET state = :target, updated_at = " + UTC_NOW
            + " WHERE id = :id AND state = :observed AND archived_at IS NULL"))
        .bind("target", target.name())
        .bind("id", taskId)
        .bind("observed", observed.get())
        .execute();
    if (moved == 1) {
      outbox.taskStateChanged(h, taskId, observed.get());
    }
  }

  @Override
  public GuardedWriteResult writeMetadataEntry(
      Handle h, String sessionId, String key, JsonNode value, Set<SessionState> expected, Fence fence) {
    LockedWriteGuard.requireWritableMetadataEntry(key, expected);
    LockedSession row = lockRow(h, sessionId);
    return LockedWriteGuard.write(h, sessionId, row.state(), expected, fence, () -> {
      Update update = h.createUpdate(k.sql("UPDATE {k}.task_sessions s SET metadata = ("
              + (value == null ? metadata("s") + " - :key::text"
                  : "jsonb_set(" + metadata("s") + ", ARRAY[:key::text], :value::jsonb, true)")
              + ")::text, updated_at = " + UTC_NOW
              + " WHERE s.id = :id AND s.state = :observed AND " + ResumeLockStore.FENCE_HELD_ON_S))
          .bind("key", key)
          .bind("id", sessionId)
          .bind("observed", row.state().name())
          .bind("fence", fence.token());
      if (value != null) {
        update.bind("value", value.toString());
      }
      return update;
    });
  }

  @Override
  public void keepCredentialSnapshotBeforeResume(Handle h, String sessionId, Fence fence) {
    h.createUpdate(k.sql("INSERT INTO kandev_session_resumes AS r (session_id, snapshot_before_resume,"
            + " snapshot_before_resume_fence) SELECT s.id, " + metadata("s") + " -> :key, :fence FROM {k}.task_sessions s"
            + " WHERE s.id = :id AND s.state = 'STARTING' AND " + ResumeLockStore.FENCE_HELD_ON_S
            + " ON CONFLICT (session_id) DO UPDATE SET snapshot_before_resume = EXCLUDED.snapshot_before_resume,"
            + " snapshot_before_resume_fence = EXCLUDED.snapshot_before_resume_fence"
            + " WHERE r.snapshot_before_resume_fence IS DISTINCT FROM EXCLUDED.snapshot_before_resume_fence"))
        .bind("key", CREDENTIAL_SNAPSHOT_KEY)
        .bind("id", sessionId)
        .bind("fence", fence.token())
        .execute();
  }

  @Override
  public Optional<GuardedWriteResult> restoreCredentialSnapshotBeforeResume(
      Handle h, String sessionId, Set<SessionState> expected, Fence fence) {
    LockedSession row = lockRow(h, sessionId);
    return LockedWriteGuard.restoreKeptSnapshot(h, sessionId, row.state(), expected, fence,
        "SELECT snapshot_before_resume_fence = :fence FROM kandev_session_resumes WHERE session_id = :id",
        () -> h.createUpdate(k.sql("UPDATE {k}.task_sessions s SET metadata = (CASE WHEN r.snapshot_before_resume IS NULL"
              + " THEN " + metadata("s") + " - :key::text"
              + " ELSE jsonb_set(" + metadata("s") + ", ARRAY[:key::text], r.snapshot_before_resume, true) END)::text,"
              + " updated_at = " + UTC_NOW + " FROM kandev_session_resumes r WHERE r.session_id = s.id AND s.id = :id"))
          .bind("key", CREDENTIAL_SNAPSHOT_KEY)
          .bind("id", sessionId)
          .execute());
  }

  @Override
  public List<String> idsIn(Handle h, SessionState state) {
    return h.createQuery(k.sql("SELECT id FROM {k}.task_sessions WHERE state = :state ORDER BY id"))
        .bind("state", state.name())
        .mapTo(String.class)
        .list();
  }

  @Override
  public boolean lastStartedUnder(Handle h, String sessionId, Fence fence) {
    return !fence.isNone() && h.createQuery(
            "SELECT COALESCE(resume_fence = :fence, false) FROM kandev_session_resumes WHERE session_id = :id")
        .bind("id", sessionId)
        .bind("fence", fence.token())
        .mapTo(Boolean.class)
        .findOne()
        .orElse(false);
  }

  @Override
  public Optional<SessionState> stateBeforeLast(Handle h, String sessionId, SessionState entered) {
    return MirrorSessionStore.stateBeforeLastFromEvents(h, sessionId, entered);
  }

  private ObjectNode object(String sessionId, String text) {
    try {
      JsonNode node = json.readTree(text);
      if (node instanceof ObjectNode object) {
        return object;
      }
      throw new IllegalStateException("metadata of session " + sessionId + " is JSON but not an object");
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("metadata of session " + sessionId + " is not JSON", e);
    }
  }
}
