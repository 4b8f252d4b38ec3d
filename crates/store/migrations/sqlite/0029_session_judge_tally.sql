-- Who judged a campaign's sessions (the review's model, else its method),
-- with how many sessions each, kept with the other session tallies: the
-- report lists its judges from here instead of reading every review. The
-- session tallies are filled again from the sessions once, so that this
-- one starts from every review already stored.
CREATE TABLE session_judge_tally (
    campaign_id TEXT NOT NULL REFERENCES campaigns(id),
    judge       TEXT NOT NULL,
    sessions    INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, judge)
) WITHOUT ROWID;

INSERT INTO pending_backfills (name)
    SELECT 'session_tallies' WHERE EXISTS (SELECT 1 FROM exploration_sessions)
    ON CONFLICT DO NOTHING;
