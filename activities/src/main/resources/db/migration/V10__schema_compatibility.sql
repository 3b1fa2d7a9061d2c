-- Expand/contract (docs/upgrades.md "Schema changes"): a migration only adds (tables, nullable or
-- defaulted columns, indexes), so the workers of the previous release keep running on the new schema.
-- A migration that takes something away (drop, rename, a new constraint old writes break) comes a
-- release after nothing uses it any more, and raises this marker to the first migration version whose
-- workers no longer use it: a worker that knows only older migrations then refuses to start.
CREATE TABLE schema_compatibility (
    singleton                  BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    oldest_compatible_version  INTEGER NOT NULL CHECK (oldest_compatible_version > 0)
);
INSERT INTO schema_compatibility (oldest_compatible_version) VALUES (1);
