-- The leases a resume attempt issued, by its session and fence (the fencing token of its resume lock):
-- the lease step of that attempt, run again because its result was lost (a local activity whose
-- workflow task never completed), returns these instead of issuing more while they can still be used.
-- Non-secret: lease ids and the git credential snapshot the step returned, as workflow history holds
-- them. Rows are swept with the leases. Expand-only: a worker that predates it never touches it.
CREATE TABLE credential_lease_attempts (
    session_id  TEXT NOT NULL,
    fence       BIGINT NOT NULL CHECK (fence > 0),
    lease_ids   TEXT[] NOT NULL,
    -- NULL: the session's task has no repository.
    snapshot    JSONB CHECK (snapshot IS NULL OR jsonb_typeof(snapshot) = 'object'),
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (session_id, fence)
);
CREATE INDEX credential_lease_attempts_created_at ON credential_lease_attempts (created_at);
