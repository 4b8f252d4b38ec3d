-- A target that campaigns used is archived instead of deleted, so that
-- their reports keep naming it; archived targets are left out of the
-- target list unless asked for.
ALTER TABLE targets ADD COLUMN archived_at INTEGER;
