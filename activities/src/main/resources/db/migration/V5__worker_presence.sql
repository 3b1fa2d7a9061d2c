-- Which worker instances are alive: each worker beats its row every few seconds. Restart recovery
-- takes the agents of an instance that stopped beating for lost (another instance on the same host
-- that still beats keeps its sessions).
CREATE TABLE worker_presence (
    worker_instance TEXT PRIMARY KEY,
    host            TEXT NOT NULL,
    started_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
