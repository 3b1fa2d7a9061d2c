-- A fixture of Kandev's own PostgreSQL tables as Kandev's Go code creates them
-- (github.com/kdlbs/kandev cd9fa0e, KANDEV_DATABASE_DRIVER=postgres), written from
-- ../shared/reference/kandev-postgres.md §3: Kandev's names, types, defaults, keys and
-- indexes. Kandev's JSON is text, its timestamps are naive UTC `timestamp` with no default
-- (the writer supplies them), its booleans are integers. No CHECK except tasks_priority_check,
-- no trigger, no function. Applied unqualified into a schema the test harness creates and puts
-- first on the search path; it is never one of our migrations.

CREATE TABLE tasks (
    id                      text PRIMARY KEY,
    workspace_id            text NOT NULL DEFAULT '',
    workflow_id             text NOT NULL DEFAULT '',
    workflow_step_id        text NOT NULL DEFAULT '',
    title                   text NOT NULL,
    description             text DEFAULT '',
    state                   text DEFAULT 'TODO',
    priority                text NOT NULL DEFAULT 'medium',
    position                integer DEFAULT 0,
    metadata                text DEFAULT '{}',
    created_at              timestamp NOT NULL,
    updated_at              timestamp NOT NULL,
    archived_at             timestamp,
    parent_id               text DEFAULT '',
    is_ephemeral            integer NOT NULL DEFAULT 0,
    project_id              text DEFAULT '',
    labels                  text DEFAULT '[]',
    identifier              text,
    origin                  text DEFAULT 'manual',
    archived_by_cascade_id  text DEFAULT '',
    external_id             text COLLATE "C",
    external_id_settled_at  timestamp,
    checkout_agent_id       text,
    checkout_run_id         text,
    checkout_at             timestamp,
    wip_admitted            integer NOT NULL DEFAULT 1,
    autopilot_enabled       integer NOT NULL DEFAULT 0,
    queued_for_step_id      text NOT NULL DEFAULT '',
    queued_at               timestamp,
    CONSTRAINT tasks_priority_check CHECK (priority IN ('critical', 'high', 'medium', 'low'))
);
CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX idx_tasks_workspace_id ON tasks (workspace_id);
CREATE INDEX idx_tasks_workspace_archived ON tasks (workspace_id, archived_at);
CREATE INDEX idx_tasks_workspace_created ON tasks (workspace_id, created_at);
CREATE INDEX idx_tasks_workspace_updated ON tasks (workspace_id, updated_at);
CREATE INDEX idx_tasks_workflow_id ON tasks (workflow_id);
CREATE INDEX idx_tasks_workflow_step_id ON tasks (workflow_step_id);
CREATE INDEX idx_tasks_workflow_step_state ON tasks (workflow_step_id, state);
CREATE INDEX idx_tasks_archived_at ON tasks (archived_at);
CREATE INDEX idx_tasks_project_id ON tasks (project_id);
CREATE INDEX idx_tasks_queued ON tasks (queued_for_step_id, queued_at);

CREATE TABLE task_sessions (
    id                         text PRIMARY KEY,
    task_id                    text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    agent_execution_id         text NOT NULL DEFAULT '',
    container_id               text NOT NULL DEFAULT '',
    agent_profile_id           text,
    executor_id                text DEFAULT '',
    environment_id             text DEFAULT '',
    repository_id              text DEFAULT '',
    base_branch                text DEFAULT '',
    agent_profile_snapshot     text DEFAULT '{}',
    executor_snapshot          text DEFAULT '{}',
    environment_snapshot       text DEFAULT '{}',
    repository_snapshot        text DEFAULT '{}',
    state                      text NOT NULL DEFAULT 'CREATED',
    error_message              text DEFAULT '',
    metadata                   text DEFAULT '{}',
    started_at                 timestamp NOT NULL,
    completed_at               timestamp,
    updated_at                 timestamp NOT NULL,
    is_primary                 integer DEFAULT 0,
    executor_profile_id        text DEFAULT '',
    base_commit_sha            text DEFAULT '',
    task_environment_id        text DEFAULT '',
    is_passthrough             integer DEFAULT 0,
    workspace_path             text DEFAULT '',
    name                       text DEFAULT '',
    last_read_message_id       text DEFAULT '',
    review_status              text DEFAULT '',
    execution_profile_id       text NOT NULL DEFAULT '',
    route_state                text NOT NULL DEFAULT '',
    route_reason               text NOT NULL DEFAULT '',
    downstream_acp_session_id  text NOT NULL DEFAULT '',
    route_generation           integer NOT NULL DEFAULT 0,
    cost_subcents              integer NOT NULL DEFAULT 0,
    tokens_in                  bigint NOT NULL DEFAULT 0,
    tokens_out                 bigint NOT NULL DEFAULT 0,
    tokens_cached_in           bigint NOT NULL DEFAULT 0
);
CREATE INDEX idx_task_sessions_task_id ON task_sessions (task_id);
CREATE INDEX idx_task_sessions_state ON task_sessions (state);
CREATE INDEX idx_task_sessions_task_state ON task_sessions (task_id, state);
CREATE INDEX idx_task_sessions_task_started ON task_sessions (task_id, started_at);
CREATE INDEX idx_task_sessions_profile_started ON task_sessions (agent_profile_id, started_at);
CREATE INDEX idx_task_sessions_repository_id ON task_sessions (repository_id);

CREATE TABLE executors_running (
    id                    text PRIMARY KEY,
    session_id            text NOT NULL UNIQUE,
    task_id               text NOT NULL,
    executor_id           text NOT NULL,
    runtime               text DEFAULT '',
    status                text NOT NULL DEFAULT 'starting',
    resumable             integer NOT NULL DEFAULT 0,
    resume_token          text DEFAULT '',
    agent_execution_id    text DEFAULT '',
    container_id          text DEFAULT '',
    agentctl_url          text DEFAULT '',
    agentctl_port         integer DEFAULT 0,
    pid                   integer DEFAULT 0,
    local_pid             integer DEFAULT 0,
    worktree_id           text DEFAULT '',
    worktree_path         text DEFAULT '',
    worktree_branch       text DEFAULT '',
    last_seen_at          timestamp,
    error_message         text DEFAULT '',
    metadata              text DEFAULT '{}',
    last_message_uuid     text DEFAULT '',
    execution_profile_id  text NOT NULL DEFAULT '',
    created_at            timestamp NOT NULL,
    updated_at            timestamp NOT NULL
);

CREATE TABLE task_session_turns (
    id                    text PRIMARY KEY,
    task_session_id       text NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
    task_id               text NOT NULL,
    started_at            timestamp NOT NULL,
    completed_at          timestamp,
    metadata              text DEFAULT '{}',
    created_at            timestamp NOT NULL,
    updated_at            timestamp NOT NULL,
    execution_profile_id  text NOT NULL DEFAULT '',
    route_generation      bigint NOT NULL DEFAULT 0
);
CREATE INDEX idx_task_session_turns_session ON task_session_turns (task_session_id);
CREATE INDEX idx_task_session_turns_session_started ON task_session_turns (task_session_id, started_at);
CREATE INDEX idx_task_session_turns_session_started_completed
    ON task_session_turns (task_session_id, started_at, completed_at);
CREATE INDEX idx_task_session_turns_task ON task_session_turns (task_id);

CREATE TABLE task_session_messages (
    id               text PRIMARY KEY,
    task_session_id  text NOT NULL REFERENCES task_sessions (id) ON DELETE CASCADE,
    task_id          text DEFAULT '',
    turn_id          text NOT NULL REFERENCES task_session_turns (id) ON DELETE CASCADE,
    author_type      text NOT NULL DEFAULT 'user',
    author_id        text DEFAULT '',
    content          text NOT NULL,
    requests_input   integer DEFAULT 0,
    type             text NOT NULL DEFAULT 'message',
    metadata         text DEFAULT '{}',
    created_at       timestamp NOT NULL,
    updated_at       timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
    prompt_seq       integer NOT NULL DEFAULT 0
);
CREATE INDEX idx_task_session_messages_session ON task_session_messages (task_session_id);
CREATE INDEX idx_task_session_messages_created ON task_session_messages (created_at);
CREATE INDEX idx_task_session_messages_session_created ON task_session_messages (task_session_id, created_at);
CREATE INDEX idx_task_session_messages_session_updated ON task_session_messages (task_session_id, updated_at);
CREATE INDEX idx_task_session_messages_prompt_order ON task_session_messages (task_session_id, created_at, id);
CREATE INDEX idx_task_session_messages_session_author_type
    ON task_session_messages (task_session_id, author_type, type);
CREATE INDEX idx_task_session_messages_turn ON task_session_messages (turn_id);
CREATE INDEX idx_messages_turn_id ON task_session_messages (turn_id);
CREATE INDEX idx_task_session_messages_task_author_type_created
    ON task_session_messages (task_id, author_type, type, created_at DESC);
CREATE INDEX idx_task_session_messages_tool_call_id
    ON task_session_messages (task_session_id, (metadata::jsonb ->> 'tool_call_id'));
CREATE INDEX idx_task_session_messages_pending_id
    ON task_session_messages (task_session_id, (metadata::jsonb ->> 'pending_id'));

CREATE TABLE task_session_prompt_seq (
    task_session_id  text PRIMARY KEY,
    last_seq         integer NOT NULL
);

CREATE TABLE workspaces (
    id                               text PRIMARY KEY,
    name                             text NOT NULL,
    description                      text DEFAULT '',
    owner_id                         text DEFAULT '',
    default_executor_id              text DEFAULT '',
    default_environment_id           text DEFAULT '',
    default_agent_profile_id         text DEFAULT '',
    default_config_agent_profile_id  text DEFAULT '',
    office_workflow_id               text DEFAULT '',
    task_prefix                      text DEFAULT 'KAN',
    task_sequence                    integer DEFAULT 0,
    created_at                       timestamp NOT NULL,
    updated_at                       timestamp NOT NULL
);

CREATE TABLE repositories (
    id                        text PRIMARY KEY,
    workspace_id              text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name                      text NOT NULL,
    source_type               text NOT NULL DEFAULT 'local',
    local_path                text DEFAULT '',
    provider                  text DEFAULT '',
    provider_repo_id          text DEFAULT '',
    provider_host             text DEFAULT '',
    provider_scope            text DEFAULT '',
    provider_owner            text DEFAULT '',
    provider_name             text DEFAULT '',
    remote_url                text DEFAULT '',
    default_branch            text DEFAULT '',
    worktree_branch_prefix    text DEFAULT 'feature/',
    worktree_branch_template  text DEFAULT 'feature/{title}-{suffix}',
    pull_before_worktree      integer NOT NULL DEFAULT 1,
    setup_script              text DEFAULT '',
    cleanup_script            text DEFAULT '',
    dev_script                text DEFAULT '',
    copy_files                text DEFAULT '',
    created_at                timestamp NOT NULL,
    updated_at                timestamp NOT NULL,
    deleted_at                timestamp
);
CREATE INDEX idx_repositories_workspace_id ON repositories (workspace_id);

CREATE TABLE task_repositories (
    id               text PRIMARY KEY,
    task_id          text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    repository_id    text NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
    base_branch      text DEFAULT '',
    checkout_branch  text DEFAULT '',
    position         integer DEFAULT 0,
    metadata         text DEFAULT '{}',
    created_at       timestamp NOT NULL,
    updated_at       timestamp NOT NULL,
    UNIQUE (task_id, repository_id, base_branch, checkout_branch)
);
CREATE INDEX idx_task_repositories_task_id ON task_repositories (task_id);
CREATE INDEX idx_task_repositories_repository_id ON task_repositories (repository_id);

CREATE TABLE task_status_summaries (
    task_id       text PRIMARY KEY REFERENCES tasks (id) ON DELETE CASCADE,
    workspace_id  text NOT NULL,
    revision      integer NOT NULL DEFAULT 0,
    summary       text NOT NULL DEFAULT '{}',
    updated_at    timestamp NOT NULL
);
CREATE INDEX idx_task_status_summaries_workspace ON task_status_summaries (workspace_id);
