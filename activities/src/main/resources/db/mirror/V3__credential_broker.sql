-- Scoped git credential broker: the repositories a task works on, the credential policy of each
-- workspace (and an optional executor override), and opaque credential leases. A lease row holds
-- only the SHA-256 hash of its token; the live credential is resolved on every redemption and
-- never stored.

CREATE TABLE repositories (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL,
    provider      TEXT NOT NULL DEFAULT 'github' CHECK (provider = lower(provider) AND provider <> ''),
    -- HTTPS identity: host (lower case) and owner/name, i.e. the canonical path /<owner>/<name>.
    host          TEXT NOT NULL CHECK (host = lower(host) AND host <> '' AND host !~ '[/@?#[:space:]]'),
    owner         TEXT NOT NULL CHECK (owner <> '' AND owner !~ '[/?#[:space:]]'),
    name          TEXT NOT NULL CHECK (name <> '' AND name !~ '[/?#[:space:]]'),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX repositories_workspace_id ON repositories (workspace_id);

CREATE TABLE task_repositories (
    task_id        TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    repository_id  TEXT NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (task_id, repository_id)
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
