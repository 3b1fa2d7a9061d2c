-- The git credential snapshot a session had before the resume of fence `snapshot_before_resume_fence`
-- persisted its own (SQL NULL: it had none), kept in the same write: a failed resume puts back exactly
-- this value, whatever keys it holds. Expand-only: a worker that predates it ignores both columns.
ALTER TABLE task_sessions
  ADD COLUMN snapshot_before_resume JSONB,
  ADD COLUMN snapshot_before_resume_fence BIGINT;
