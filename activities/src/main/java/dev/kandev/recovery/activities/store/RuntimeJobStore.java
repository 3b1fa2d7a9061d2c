package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.workflows.runtime.RuntimeJobSnapshot;
import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * The {@code runtime_update_jobs} records: upserted from workflow snapshots (Kandev's CLI and UI
 * read the table). Runs on the caller's transaction {@link Handle}.
 */
public final class RuntimeJobStore {
  private final ObjectMapper json;

  public RuntimeJobStore(ObjectMapper json) {
    this.json = json;
  }

  /** Idempotent: the row becomes the snapshot; started_at stays, finished_at is set once terminal. */
  public void save(Handle h, RuntimeJobSnapshot job) {
    h.createUpdate("INSERT INTO runtime_update_jobs (id, workflow_id, agent_id, package_spec, requested_by, status,"
            + " attempts, repaired, progress, error, finished_at)"
            + " VALUES (:id, :workflowId, :agentId, :packageSpec, :requestedBy, :status, :attempts, :repaired,"
            + " :progress::jsonb, :error, CASE WHEN :terminal THEN now() END)"
            + " ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts,"
            + " repaired = EXCLUDED.repaired, progress = EXCLUDED.progress, error = EXCLUDED.error,"
            + " updated_at = now(),"
            + " finished_at = COALESCE(runtime_update_jobs.finished_at, EXCLUDED.finished_at)")
        .bind("id", job.jobId())
        .bind("workflowId", job.workflowId())
        .bind("agentId", job.agentId())
        .bind("packageSpec", job.packageSpec())
        .bind("requestedBy", job.requestedBy())
        .bind("status", job.status().wire())
        .bind("attempts", job.attempts())
        .bind("repaired", job.repaired())
        .bind("progress", toJson(job.progress()))
        .bind("error", job.error())
        .bind("terminal", job.status().terminal())
        .execute();
  }

  private String toJson(List<String> lines) {
    try {
      return json.writeValueAsString(lines);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
