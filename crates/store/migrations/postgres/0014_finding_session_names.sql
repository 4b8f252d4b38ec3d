-- SQLite's 0031_finding_session_names.sql: the name of the session each
-- judge finding belongs to, kept with the finding (filled again once).
ALTER TABLE session_findings ADD COLUMN persona_name text COLLATE "C";
ALTER TABLE session_findings ADD COLUMN goal_title text COLLATE "C";
ALTER TABLE session_findings ADD COLUMN seed_ordinal bigint;

INSERT INTO pending_backfills (name)
    SELECT 'session_tallies' WHERE EXISTS (SELECT 1 FROM session_findings)
    ON CONFLICT DO NOTHING;
