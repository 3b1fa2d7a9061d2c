-- The "kandev" store layout (docs/kandev.md): Kandev's tables stay as Kandev creates them, so what
-- our mirror keeps in extra columns of Kandev-named tables lives here, in our schema, keyed by
-- Kandev's ids. Unused in the mirror layout. No foreign key into Kandev's schema: we never add a
-- constraint that reaches Kandev's tables.

-- The mirror's task_sessions.executor_host, resume_fence and snapshot_before_resume[_fence].
CREATE TABLE kandev_session_resumes (
    session_id                    TEXT PRIMARY KEY,
    executor_host                 TEXT NOT NULL DEFAULT '',
    resume_fence                  BIGINT,
    -- The credential snapshot entry as it was before the resume of snapshot_before_resume_fence;
    -- NULL with a fence: there was none.
    snapshot_before_resume        JSONB,
    snapshot_before_resume_fence  BIGINT
);

-- The mirror's executors_running.host, worker_instance, pid, status, agent_execution_id and
-- error_message: our agent executions. Kandev's executors_running keeps only the resume token.
CREATE TABLE kandev_agent_executions (
    session_id          TEXT PRIMARY KEY,
    agent_execution_id  TEXT NOT NULL DEFAULT '',
    host                TEXT NOT NULL DEFAULT '',
    worker_instance     TEXT NOT NULL DEFAULT '',
    pid                 BIGINT,
    status              TEXT NOT NULL DEFAULT 'stopped'
                        CHECK (status IN ('starting', 'running', 'ready', 'failed', 'stopped', 'completed')),
    error_message       TEXT NOT NULL DEFAULT '',
    last_seen_at        TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX kandev_agent_executions_host ON kandev_agent_executions (host, status);

-- The mirror's session_messages.dedupe_key: how a session/load replay recognises a message it
-- finds in Kandev's task_session_messages, which has no dedupe key of its own.
CREATE TABLE kandev_transcript_keys (
    message_id  TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    ordinal     INTEGER NOT NULL,
    dedupe_key  TEXT NOT NULL,
    UNIQUE (session_id, dedupe_key),
    UNIQUE (session_id, ordinal)
);
