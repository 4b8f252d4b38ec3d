-- SQLite's 0029_session_judge_tally.sql: who judged a campaign's sessions,
-- with how many each, kept with the session tallies (filled again once).
CREATE TABLE session_judge_tally (
    campaign_id text COLLATE "C" NOT NULL REFERENCES campaigns(id),
    judge       text COLLATE "C" NOT NULL,
    sessions    bigint NOT NULL,
    PRIMARY KEY (campaign_id, judge)
);

INSERT INTO pending_backfills (name)
    SELECT 'session_tallies' WHERE EXISTS (SELECT 1 FROM exploration_sessions)
    ON CONFLICT DO NOTHING;
