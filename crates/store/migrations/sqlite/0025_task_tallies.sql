-- Seed 002's figures per difficulty group (task completion, steps, time
-- per task) are kept with the run verdict tallies:
--   task_completed     runs whose every turn got a reply and that produced
--                      the document or file their task asks for
--   task_runs          runs with metrics, counted in the two sums below
--   latency_total_sum  sum of their whole time (every reply of the run)
--   steps_runs         runs whose steps were counted (metrics that say)
--   steps_sum          sum of the tool calls the engine answered in them
-- The tallies are filled again from the finished runs when the engine next
-- opens the database (`pending_backfills`), so that runs stored before
-- count too.
ALTER TABLE run_verdict_tally ADD COLUMN task_completed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run_verdict_tally ADD COLUMN task_runs INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run_verdict_tally ADD COLUMN latency_total_sum REAL NOT NULL DEFAULT 0;
ALTER TABLE run_verdict_tally ADD COLUMN steps_runs INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run_verdict_tally ADD COLUMN steps_sum INTEGER NOT NULL DEFAULT 0;
INSERT OR IGNORE INTO pending_backfills (name)
    SELECT 'run_tallies' WHERE EXISTS (SELECT 1 FROM run_verdict_tally);
