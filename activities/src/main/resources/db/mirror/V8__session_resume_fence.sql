-- The fencing token of the resume that last moved the session to STARTING (NULL: none yet). A resume
-- step that runs again after its result was lost (a local activity whose workflow task never
-- completed) recognises its own earlier write by it: its own STARTING when it reads the context again,
-- its own settle even after its lock was released.
ALTER TABLE task_sessions ADD COLUMN resume_fence BIGINT;
