package dev.kandev.recovery.activities.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.workflows.runtime.RuntimeJobSnapshot;
import dev.kandev.recovery.workflows.runtime.RuntimeJobStatus;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;

/** The {@code runtime_update_jobs} records: upserted from workflow snapshots, read by the CLI and UI. */
public final class RuntimeJobStore {
  private static final TypeReference<List<String>> LINES = new TypeReference<>() {};
  private static final String COLUMNS =
      "id, workflow_id, agent_id, package_spec, requested_by, status, attempts, repaired, progress::text, error,"
          + " started_at, finished_at";

  private final DataSource dataSource;
  private final ObjectMapper json;

  public RuntimeJobStore(DataSource dataSource, ObjectMapper json) {
    this.dataSource = dataSource;
    this.json = json;
  }

  /** Idempotent: the row becomes the snapshot; started_at stays, finished_at is set once terminal. */
  public void save(RuntimeJobSnapshot job) {
    String progress = toJson(job.progress());
    Sql.inTransaction(
        dataSource,
        "save runtime update job " + job.jobId(),
        c -> {
          try (PreparedStatement upsert = c.prepareStatement(
              "INSERT INTO runtime_update_jobs (id, workflow_id, agent_id, package_spec, requested_by, status,"
                  + " attempts, repaired, progress, error, finished_at)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, CASE WHEN ? THEN now() END)"
                  + " ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts,"
                  + " repaired = EXCLUDED.repaired, progress = EXCLUDED.progress, error = EXCLUDED.error,"
                  + " updated_at = now(),"
                  + " finished_at = COALESCE(runtime_update_jobs.finished_at, EXCLUDED.finished_at)")) {
            upsert.setString(1, job.jobId());
            upsert.setString(2, job.workflowId());
            upsert.setString(3, job.agentId());
            upsert.setString(4, job.packageSpec());
            upsert.setString(5, job.requestedBy());
            upsert.setString(6, job.status().wire());
            upsert.setInt(7, job.attempts());
            upsert.setBoolean(8, job.repaired());
            upsert.setString(9, progress);
            upsert.setString(10, job.error());
            upsert.setBoolean(11, job.status().terminal());
            return upsert.executeUpdate();
          }
        });
  }

  public Optional<RuntimeJobRecord> find(String jobId) {
    return Sql.inTransaction(dataSource, "read runtime update job " + jobId, c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT " + COLUMNS + " FROM runtime_update_jobs WHERE id = ?")) {
        select.setString(1, jobId);
        try (ResultSet rs = select.executeQuery()) {
          return rs.next() ? Optional.of(read(rs)) : Optional.empty();
        }
      }
    });
  }

  /** The jobs of one agent, newest first. */
  public List<RuntimeJobRecord> forAgent(String agentId) {
    return Sql.inTransaction(dataSource, "list runtime update jobs of " + agentId, c -> {
      try (PreparedStatement select = c.prepareStatement(
          "SELECT " + COLUMNS + " FROM runtime_update_jobs WHERE agent_id = ? ORDER BY started_at DESC, id")) {
        select.setString(1, agentId);
        List<RuntimeJobRecord> jobs = new ArrayList<>();
        try (ResultSet rs = select.executeQuery()) {
          while (rs.next()) {
            jobs.add(read(rs));
          }
        }
        return jobs;
      }
    });
  }

  private RuntimeJobRecord read(ResultSet rs) throws SQLException {
    Timestamp finished = rs.getTimestamp(12);
    return new RuntimeJobRecord(
        rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
        RuntimeJobStatus.valueOf(rs.getString(6).toUpperCase(Locale.ROOT)),
        rs.getInt(7), rs.getBoolean(8), fromJson(rs.getString(9)), rs.getString(10),
        rs.getTimestamp(11).toInstant(), finished == null ? null : finished.toInstant());
  }

  private String toJson(List<String> lines) {
    try {
      return json.writeValueAsString(lines);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private List<String> fromJson(String text) throws SQLException {
    try {
      return json.readValue(text, LINES);
    } catch (JsonProcessingException e) {
      throw new SQLException("runtime_update_jobs.progress is not a JSON array of strings", e);
    }
  }
}
