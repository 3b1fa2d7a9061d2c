-- Kandev's bus events for the transitions a resume makes on Kandev's own tables (the "kandev" store
-- layout), written in the transition's transaction and published to Kandev's NATS bus after the commit
-- by the worker's relay (KandevBusRelay): in seq order, at least once. A crash between the commit and
-- the publish loses nothing; a crash between the publish and published_at republishes the same
-- event_id, so a duplicate is recognisable. Published rows are pruned after a day.
CREATE TABLE kandev_event_outbox (
    seq          BIGSERIAL PRIMARY KEY,
    event_id     UUID NOT NULL UNIQUE,
    subject      TEXT NOT NULL,
    envelope     TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    published_at TIMESTAMPTZ
);
CREATE INDEX kandev_event_outbox_unpublished ON kandev_event_outbox (seq) WHERE published_at IS NULL;
CREATE INDEX kandev_event_outbox_published ON kandev_event_outbox (published_at) WHERE published_at IS NOT NULL;
