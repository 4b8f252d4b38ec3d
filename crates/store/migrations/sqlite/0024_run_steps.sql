-- The steps of a turn of an agent that acts: each tool call the engine
-- answered before the target's reply (JSON [Step]), on that reply's row.
ALTER TABLE run_turns ADD COLUMN steps TEXT;
