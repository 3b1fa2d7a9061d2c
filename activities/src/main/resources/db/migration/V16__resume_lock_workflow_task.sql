-- The newest workflow task that wrote under a resume lock (issue 41, docs/reliability.md finding 14),
-- in both layouts: the event id of its WorkflowTaskStarted. The fencing token tells runs apart, not
-- the copies of one run's workflow task: a worker back from a stall goes on with its stale copy of a
-- task that another worker has run since, under the same lock. A resume's store writes carry the
-- started event id of their task (Workflow.getInfo().getHistoryLength(): a task's retry starts at a
-- later event than the copy it replaces, every later task too); the lock row keeps the newest and
-- refuses older ones. NULL: nothing stamped wrote yet (a new holder starts afresh). Expand only: an
-- older worker neither reads nor writes it.
ALTER TABLE resume_locks ADD COLUMN workflow_task BIGINT;
