package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.workflows.model.TaskState;
import dev.kandev.recovery.workflows.runtime.RuntimeJobSnapshot;
import dev.kandev.recovery.workflows.runtime.RuntimeJobStatus;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * Store operations only tests use (the worker never needs them): they read what a test asserts, or
 * set up what the worker does in another way. They run on a transaction handle like the stores'.
 */
public final class TestStores {
  private static final TypeReference<List<String>> LINES = new TypeReference<>() {};
  private static final RowMapper<RuntimeJobRecord> RUNTIME_JOB_RECORD = (rs, ctx) -> new RuntimeJobRecord(
      new RuntimeJobSnapshot(rs.getString("id"), rs.getString("workflow_id"), rs.getString("agent_id"),
          rs.getString("package_spec"), rs.getString("requested_by"),
          RuntimeJobStatus.valueOf(rs.getString("status").toUpperCase(Locale.ROOT)), rs.getInt("attempts"),
          rs.getBoolean("repaired"), lines(rs.getString("progress")), rs.getString("error")),
      rs.getTimestamp("started_at").toInstant(),
      Optional.ofNullable(rs.getTimestamp("finished_at")).map(Timestamp::toInstant).orElse(null));
  private static final String RUNTIME_JOB_COLUMNS = "id, workflow_id, agent_id, package_spec, requested_by, status,"
      + " attempts, repaired, progress::text AS progress, error, started_at, finished_at";

  private TestStores() {}

  /** Whether the row claims a live agent process: its status is one the store counts as live. */
  public static boolean claimsLiveProcess(ExecutorRecord executor) {
    return MirrorExecutorsRunningStore.LIVE.contains(executor.status());
  }

  /** {@code metadata.acp.session_id} of the session's row, the durable mirror of the resume token. */
  public static Optional<String> acpSessionId(SessionRecord session) {
    return Optional.ofNullable(session.metadata().path("acp").get("session_id"))
        .filter(JsonNode::isTextual)
        .map(JsonNode::asText)
        .filter(id -> !id.isEmpty());
  }

  /** Extends the lock if its owner still holds it with that token. */
  public static Optional<ResumeLock> renew(Handle h, ResumeLock lock, Duration ttl) {
    ResumeLockStore.requireTtl(ttl);
    return h.createQuery("UPDATE resume_locks SET expires_at = now() + :ttlMillis * interval '1 millisecond'"
            + " WHERE session_id = :sessionId AND owner = :owner AND fencing_token = :fence"
            + " RETURNING session_id, owner, fencing_token, expires_at")
        .bind("ttlMillis", ttl.toMillis())
        .bind("sessionId", lock.sessionId())
        .bind("owner", lock.owner())
        .bind("fence", lock.fence().token())
        .map(ResumeLockStore.RESUME_LOCK)
        .findOne();
  }

  /** Rows that claim a live process owned by {@code host}/{@code workerInstance}. */
  public static List<ExecutorRecord> claimedBy(Handle h, String host, String workerInstance) {
    return h.createQuery("SELECT " + MirrorExecutorsRunningStore.EXECUTOR_COLUMNS + " FROM executors_running"
            + " WHERE host = :host AND worker_instance = :instance AND status IN " + MirrorExecutorsRunningStore.LIVE_STATUSES
            + " ORDER BY session_id")
        .bind("host", host)
        .bind("instance", workerInstance)
        .map(MirrorExecutorsRunningStore.EXECUTOR_RECORD)
        .list();
  }

  /**
   * Appends messages of a live turn, as Kandev does; user messages are keyed by content.
   *
   * @return how many rows were inserted
   */
  public static int appendLive(Handle h, String sessionId, List<TranscriptMessage> messages) {
    return MirrorTranscriptStore.append(h, sessionId, messages, false);
  }

  /** The session's transcript, in order. */
  public static List<TranscriptEntry> transcript(Handle h, String sessionId) {
    return MirrorTranscriptStore.entries(h, sessionId);
  }

  public static Optional<TaskState> taskState(Handle h, String taskId) {
    return h.createQuery("SELECT state FROM tasks WHERE id = :taskId").bind("taskId", taskId).mapTo(String.class).findOne()
        .map(TaskState::parse);
  }

  public static Optional<RuntimeJobRecord> runtimeJob(Handle h, String jobId) {
    return h.createQuery("SELECT " + RUNTIME_JOB_COLUMNS + " FROM runtime_update_jobs WHERE id = :id")
        .bind("id", jobId)
        .map(RUNTIME_JOB_RECORD)
        .findOne();
  }

  /** The jobs of one agent, newest first. */
  public static List<RuntimeJobRecord> runtimeJobsOf(Handle h, String agentId) {
    return h.createQuery("SELECT " + RUNTIME_JOB_COLUMNS + " FROM runtime_update_jobs WHERE agent_id = :agentId"
            + " ORDER BY started_at DESC, id")
        .bind("agentId", agentId)
        .map(RUNTIME_JOB_RECORD)
        .list();
  }

  private static List<String> lines(String json) {
    try {
      return Json.mapper().readValue(json, LINES);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("runtime_update_jobs.progress is not a JSON array of strings", e);
    }
  }
}
