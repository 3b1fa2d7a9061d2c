-- The executor host a session belongs to: where its workspace lives and its agent runs. The resume
-- launches and stops the session's agent only through that host's queues. Empty: not bound yet; the
-- first launch binds it to the host of the worker that launched it. A starter may set it.
ALTER TABLE task_sessions ADD COLUMN executor_host TEXT NOT NULL DEFAULT '';
