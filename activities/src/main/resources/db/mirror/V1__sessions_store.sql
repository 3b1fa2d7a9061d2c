-- Core store: tasks, their sessions, the agent runtime record, transition events,
-- the per-session resume lock and the transcript. Names are part of docs/contract.md.

CREATE TABLE tasks (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    -- Kandev's task state; REVIEW is the "Turn Finished" review bucket.
    state         TEXT NOT NULL DEFAULT 'TODO'
                  CHECK (state IN ('TODO', 'CREATED', 'SCHEDULING', 'IN_PROGRESS', 'REVIEW', 'BLOCKED',
                                   'WAITING_FOR_INPUT', 'COMPLETED', 'FAILED', 'CANCELLED')),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE task_sessions (
    id              TEXT PRIMARY KEY,
    task_id         TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    agent_id        TEXT NOT NULL,
    workspace_path  TEXT NOT NULL DEFAULT '',
    state           TEXT NOT NULL DEFAULT 'CREATED'
                    CHECK (state IN ('CREATED', 'STARTING', 'RUNNING', 'IDLE', 'WAITING_FOR_INPUT',
                                     'COMPLETED', 'FAILED', 'CANCELLED')),
    error_message   TEXT NOT NULL DEFAULT '',
    -- metadata.acp.session_id: provider-native conversation id (mirror of executors_running.resume_token)
    -- metadata.git_credential_snapshot: non-secret credential routing snapshot
    metadata        JSONB NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(metadata) = 'object'),
    is_primary      BOOLEAN NOT NULL DEFAULT TRUE,
    started_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    completed_at    TIMESTAMPTZ,
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX task_sessions_task_id ON task_sessions (task_id);

CREATE TABLE executors_running (
    session_id          TEXT PRIMARY KEY REFERENCES task_sessions (id) ON DELETE CASCADE,
    task_id             TEXT NOT NULL,
    agent_id            TEXT NOT NULL,
    -- The operational provider-native session id. Changes only on explicit fresh start
    -- (cleared) or after a successful ACP session/new (replaced).
    resume_token        TEXT NOT NULL DEFAULT '',
    agent_execution_id  TEXT NOT NULL DEFAULT '',
    host                TEXT NOT NULL DEFAULT '',
    worker_instance     TEXT NOT NULL DEFAULT '',
    pid                 BIGINT,
    status              TEXT NOT NULL DEFAULT 'stopped'
                        CHECK (status IN ('starting', 'running', 'ready', 'failed', 'stopped', 'completed', 'prepared')),
    error_message       TEXT NOT NULL DEFAULT '',
    last_seen_at        TIMESTAMPTZ,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Append-only publication of every session state transition, written in the
-- transaction of the transition and announced with pg_notify('session_events', ...).
CREATE TABLE session_events (
    id             BIGSERIAL PRIMARY KEY,
    session_id     TEXT NOT NULL,
    task_id        TEXT NOT NULL,
    from_state     TEXT NOT NULL,
    to_state       TEXT NOT NULL,
    reason         TEXT NOT NULL DEFAULT '',
    error_message  TEXT NOT NULL DEFAULT '',
    at             TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX session_events_session_id ON session_events (session_id, id);

CREATE SEQUENCE resume_lock_fencing_seq;

CREATE TABLE resume_locks (
    session_id     TEXT PRIMARY KEY,
    owner          TEXT NOT NULL,
    fencing_token  BIGINT NOT NULL,
    acquired_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at     TIMESTAMPTZ NOT NULL
);

CREATE TABLE session_messages (
    id           BIGSERIAL PRIMARY KEY,
    session_id   TEXT NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
    ordinal      INTEGER NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('user', 'agent', 'thought', 'tool', 'system')),
    content      TEXT NOT NULL,
    -- Provider-side message id when the agent sends one, else a content hash; lets a
    -- session/load replay be recognised so it never duplicates persisted messages.
    dedupe_key   TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (session_id, ordinal),
    UNIQUE (session_id, dedupe_key)
);

-- Defence in depth for the rule the store enforces: a terminal session stays terminal, except
-- that a resume may move FAILED or CANCELLED to STARTING. COMPLETED never changes.
CREATE FUNCTION task_sessions_keep_terminal() RETURNS trigger AS $$
BEGIN
    IF NEW.state IS DISTINCT FROM OLD.state
       AND (OLD.state = 'COMPLETED' OR (OLD.state IN ('FAILED', 'CANCELLED') AND NEW.state <> 'STARTING')) THEN
        RAISE EXCEPTION 'session % is %: a terminal session only leaves its state through a resume to STARTING',
            OLD.id, OLD.state USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER task_sessions_keep_terminal
    BEFORE UPDATE OF state ON task_sessions
    FOR EACH ROW EXECUTE FUNCTION task_sessions_keep_terminal();
