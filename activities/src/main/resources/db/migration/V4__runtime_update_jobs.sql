-- One row per RuntimeUpdateWorkflow run (id = the workflow run id). Written only by the
-- workflow's RuntimeSaveJob activity; read by the CLI, the Kandev API and tests.
CREATE TABLE runtime_update_jobs (
    id            TEXT PRIMARY KEY,
    workflow_id   TEXT NOT NULL,
    agent_id      TEXT NOT NULL,
    package_spec  TEXT NOT NULL,
    requested_by  TEXT NOT NULL DEFAULT '',
    status        TEXT NOT NULL
                  CHECK (status IN ('queued', 'updating', 'repairing', 'retrying', 'probing', 'succeeded', 'failed')),
    -- update command runs (0..2) and whether the one targeted _npx repair ran
    attempts      INTEGER NOT NULL DEFAULT 0 CHECK (attempts BETWEEN 0 AND 2),
    repaired      BOOLEAN NOT NULL DEFAULT FALSE,
    -- the progress lines shown by the CLI / UI, a JSON array of strings
    progress      JSONB NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(progress) = 'array'),
    error         TEXT NOT NULL DEFAULT '',
    started_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at   TIMESTAMPTZ
);
CREATE INDEX runtime_update_jobs_agent ON runtime_update_jobs (agent_id, started_at DESC);
