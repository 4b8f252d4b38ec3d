-- SQLite's 0024_run_steps.sql: the steps of a turn (JSON [Step]), each
-- tool call the engine answered before the target's reply.
ALTER TABLE run_turns ADD COLUMN steps text COLLATE "C";
