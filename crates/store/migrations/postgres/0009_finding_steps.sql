-- SQLite's 0027_finding_steps.sql: the step of its round a judge finding
-- is about.
ALTER TABLE session_findings ADD COLUMN step bigint;
