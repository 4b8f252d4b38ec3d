-- SQLite's 0025_task_tallies.sql: seed 002's figures per difficulty group
-- kept with the run verdict tallies, filled again from the finished runs.
ALTER TABLE run_verdict_tally ADD COLUMN task_completed bigint NOT NULL DEFAULT 0;
ALTER TABLE run_verdict_tally ADD COLUMN task_runs bigint NOT NULL DEFAULT 0;
ALTER TABLE run_verdict_tally ADD COLUMN latency_total_sum double precision NOT NULL DEFAULT 0;
ALTER TABLE run_verdict_tally ADD COLUMN steps_runs bigint NOT NULL DEFAULT 0;
ALTER TABLE run_verdict_tally ADD COLUMN steps_sum bigint NOT NULL DEFAULT 0;
INSERT INTO pending_backfills (name)
    SELECT 'run_tallies' WHERE EXISTS (SELECT 1 FROM run_verdict_tally)
    ON CONFLICT DO NOTHING;
