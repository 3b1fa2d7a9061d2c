-- The "kandev" store layout (docs/kandev.md), a fresh deployment: our own tables of V1 and V3, as they
-- create them, and none of the mirror's Kandev-named tables (tasks, task_sessions, executors_running,
-- session_messages, repositories, task_repositories): Kandev's own are used. The mirror layout, and a
-- kandev-layout schema that already applied V1 (it keeps the mirror's tables: docs/upgrades.md), run
-- db/mirror's V1, V3, V6-V9 instead of this one. Same version space as db/migration.

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

-- The policy a workspace's sessions get. No row means policy 'none'. Read on every issuance, so a
-- changed row changes the policy of the next resume.
CREATE TABLE workspace_credential_policies (
    workspace_id     TEXT PRIMARY KEY,
    policy           TEXT NOT NULL CHECK (policy IN ('none', 'github_app')),
    installation_id  BIGINT CHECK (installation_id > 0),
    -- GitHub App permission subset, e.g. {"contents":"write","pull_requests":"write"}.
    permissions      JSONB NOT NULL DEFAULT '{"contents":"write"}'::jsonb CHECK (jsonb_typeof(permissions) = 'object'),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (policy <> 'github_app' OR installation_id IS NOT NULL)
);

-- An executor's override of the workspace policy (e.g. an executor that brings its own credentials
-- selects 'none').
CREATE TABLE executor_credential_policies (
    executor_id      TEXT PRIMARY KEY,
    policy           TEXT NOT NULL CHECK (policy IN ('none', 'github_app')),
    installation_id  BIGINT CHECK (installation_id > 0),
    permissions      JSONB NOT NULL DEFAULT '{"contents":"write"}'::jsonb CHECK (jsonb_typeof(permissions) = 'object'),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (policy <> 'github_app' OR installation_id IS NOT NULL)
);

CREATE TABLE credential_leases (
    id                TEXT PRIMARY KEY,
    -- SHA-256 of the opaque lease token; NULL until the launch step mints the token.
    token_hash        BYTEA UNIQUE CHECK (token_hash IS NULL OR length(token_hash) = 32),
    provider          TEXT NOT NULL,
    workspace_id      TEXT NOT NULL,
    task_id           TEXT NOT NULL,
    session_id        TEXT NOT NULL,
    repository_id     TEXT NOT NULL,
    host              TEXT NOT NULL,
    path              TEXT NOT NULL,
    executor_id       TEXT,
    -- Non-secret resolver binding: policy, installation, permissions, source.
    binding           JSONB NOT NULL CHECK (jsonb_typeof(binding) = 'object'),
    ttl_seconds       INTEGER NOT NULL CHECK (ttl_seconds > 0),
    expires_at        TIMESTAMPTZ NOT NULL,
    revoked_at        TIMESTAMPTZ,
    created_at        TIMESTAMPTZ NOT NULL,
    minted_at         TIMESTAMPTZ,
    last_redeemed_at  TIMESTAMPTZ
);
CREATE INDEX credential_leases_session_id ON credential_leases (session_id);
CREATE INDEX credential_leases_expires_at ON credential_leases (expires_at);
