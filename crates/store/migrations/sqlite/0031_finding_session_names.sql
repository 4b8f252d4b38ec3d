-- The name of the session each judge finding belongs to, kept with the
-- finding: its persona's display name, its goal's title and its place
-- among the sessions of that persona and goal (`seed_ordinal`, 0028). A
-- report cites the session of every finding; on a large campaign naming
-- them by looking each session up was most of the report's time. They are
-- written as the findings are (the session tallies, 0019), and the
-- session tallies are filled again from the sessions once, so that the
-- findings already stored get them.
ALTER TABLE session_findings ADD COLUMN persona_name TEXT;
ALTER TABLE session_findings ADD COLUMN goal_title TEXT;
ALTER TABLE session_findings ADD COLUMN seed_ordinal INTEGER;

INSERT INTO pending_backfills (name)
    SELECT 'session_tallies' WHERE EXISTS (SELECT 1 FROM session_findings)
    ON CONFLICT DO NOTHING;
