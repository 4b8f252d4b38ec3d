-- How many sessions of a campaign its judge scored (the review's
-- dimensions are an object), kept with the other session tallies: the
-- judge's calibration in every report counts the scored sessions nobody
-- labelled from here instead of reading every review. The session tallies
-- are filled again from the sessions once, so that this one starts from
-- every review already stored.
CREATE TABLE session_scored_tally (
    campaign_id TEXT PRIMARY KEY REFERENCES campaigns(id),
    sessions    INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO pending_backfills (name)
    SELECT 'session_tallies' WHERE EXISTS (SELECT 1 FROM exploration_sessions)
    ON CONFLICT DO NOTHING;
