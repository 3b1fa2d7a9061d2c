-- The agent processes the workers started and have not yet seen end (issue 41, docs/reliability.md
-- finding 10), one row per launch, in both layouts. A worker that was stopped (SIGSTOP) or cut off
-- keeps its agent child alive while another worker of the same host launches the session's agent
-- again; that launch stops such an earlier process first. started_at is the process's start instant
-- as the host's kernel reports it (Java's ProcessHandle.Info.startInstant): a process is stopped only
-- if its pid and its start instant both match, so a pid the kernel gave to another process since is
-- never signalled. NULL: unknown, never stopped by another worker. The row goes when its worker
-- records the agent's exit, when a later launch on the host found the process gone or stopped it, or
-- when a worker of the host finds the process ended (UnownedAgentReaper).
-- Kandev's executors_running gets no column: this is our own table.
CREATE TABLE agent_processes (
    agent_execution_id  TEXT PRIMARY KEY,
    session_id          TEXT NOT NULL,
    host                TEXT NOT NULL,
    worker_instance     TEXT NOT NULL,
    pid                 BIGINT NOT NULL,
    started_at          TIMESTAMPTZ,
    recorded_at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX agent_processes_session_host ON agent_processes (session_id, host);
