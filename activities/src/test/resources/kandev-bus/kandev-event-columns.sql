-- The columns of Kandev's tasks and task_sessions that its bus events are built from, with Kandev's
-- PostgreSQL types, nullability and defaults (kandev-postgres.md §3.1, §3.2): text JSON, integer
-- booleans, naive-UTC timestamps without defaults, no CHECK on states, no trigger. A minimal fixture
-- for the event tests only; the full fixture of Kandev's schema is the "kandev" layout's.
CREATE TABLE tasks (
    id                  TEXT PRIMARY KEY,
    title               TEXT NOT NULL,
    workspace_id        TEXT NOT NULL DEFAULT '',
    workflow_id         TEXT NOT NULL DEFAULT '',
    workflow_step_id    TEXT NOT NULL DEFAULT '',
    queued_for_step_id  TEXT NOT NULL DEFAULT '',
    description         TEXT DEFAULT '',
    parent_id           TEXT DEFAULT '',
    state               TEXT DEFAULT 'TODO',
    priority            TEXT NOT NULL DEFAULT 'medium' CHECK (priority IN ('critical', 'high', 'medium', 'low')),
    position            INTEGER DEFAULT 0,
    wip_admitted        INTEGER NOT NULL DEFAULT 1,
    autopilot_enabled   INTEGER NOT NULL DEFAULT 0,
    is_ephemeral        INTEGER NOT NULL DEFAULT 0,
    metadata            TEXT DEFAULT '{}',
    origin              TEXT DEFAULT 'manual',
    external_id         TEXT COLLATE "C",
    queued_at           TIMESTAMP,
    archived_at         TIMESTAMP,
    created_at          TIMESTAMP NOT NULL,
    updated_at          TIMESTAMP NOT NULL
);

CREATE TABLE task_sessions (
    id                          TEXT PRIMARY KEY,
    task_id                     TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    agent_profile_id            TEXT,
    execution_profile_id        TEXT NOT NULL DEFAULT '',
    route_state                 TEXT NOT NULL DEFAULT '',
    route_reason                TEXT NOT NULL DEFAULT '',
    downstream_acp_session_id   TEXT NOT NULL DEFAULT '',
    route_generation            INTEGER NOT NULL DEFAULT 0,
    executor_id                 TEXT DEFAULT '',
    task_environment_id         TEXT DEFAULT '',
    name                        TEXT DEFAULT '',
    review_status               TEXT DEFAULT '',
    agent_profile_snapshot      TEXT DEFAULT '{}',
    state                       TEXT NOT NULL DEFAULT 'CREATED',
    error_message               TEXT DEFAULT '',
    metadata                    TEXT DEFAULT '{}',
    started_at                  TIMESTAMP NOT NULL,
    updated_at                  TIMESTAMP NOT NULL,
    completed_at                TIMESTAMP,
    is_primary                  INTEGER DEFAULT 0,
    is_passthrough              INTEGER DEFAULT 0
);
