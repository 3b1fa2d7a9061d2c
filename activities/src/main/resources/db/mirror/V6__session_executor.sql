-- The executor a session runs on (Kandev: task_sessions.executor_id, TEXT DEFAULT ''). Empty: none.
-- A resume issues its credential leases under that executor's row in executor_credential_policies
-- when there is one, else under the workspace's policy.
ALTER TABLE task_sessions ADD COLUMN executor_id TEXT NOT NULL DEFAULT '';
