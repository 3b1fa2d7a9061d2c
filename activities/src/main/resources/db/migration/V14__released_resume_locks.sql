-- The resume runs that released their session's resume lock (issue 43). A run releases its lock once,
-- as it ends; a workflow task of that run that a stalled worker still holds may go on afterwards (its
-- task was handed to another worker, which finished the run). Such a stale task must not take the lock
-- again: the acquisition refuses an owner found here, so every write the stale task tries next is fenced
-- out. Rows are pruned by retention once no stale task can be alive (docs/contract.md "Stale workflow tasks").
CREATE TABLE released_resume_locks (
    owner        TEXT PRIMARY KEY,
    session_id   TEXT NOT NULL,
    released_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX released_resume_locks_released_at ON released_resume_locks (released_at);
