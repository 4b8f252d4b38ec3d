-- SQLite's 0030_session_scored_tally.sql: how many sessions of a campaign
-- its judge scored, kept with the session tallies (filled again once).
CREATE TABLE session_scored_tally (
    campaign_id text COLLATE "C" PRIMARY KEY REFERENCES campaigns(id),
    sessions    bigint NOT NULL
);

INSERT INTO pending_backfills (name)
    SELECT 'session_tallies' WHERE EXISTS (SELECT 1 FROM exploration_sessions)
    ON CONFLICT DO NOTHING;
