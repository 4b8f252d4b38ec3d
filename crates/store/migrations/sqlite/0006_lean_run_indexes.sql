-- A run touches as few B-trees as possible on its way from pending to done:
-- * turns are keyed by (run, seq) alone; their separate text id served no
--   query and cost one more B-tree per turn;
-- * the campaign index orders runs by plan position (what the run list
--   reads), which never changes, instead of by finished_at, which every
--   verdict changed;
-- * only open runs are indexed by status, so a verdict removes the run from
--   that index instead of moving it within it. Queries name the partial
--   index's condition (`status != 'done'`) to use it.
CREATE TABLE run_turns_new (
    run_id      TEXT NOT NULL REFERENCES runs(id),
    seq         INTEGER NOT NULL,
    role        TEXT NOT NULL,                -- user | target
    content     TEXT NOT NULL,
    latency_ms  INTEGER,
    tokens_in   INTEGER,
    tokens_out  INTEGER,
    tool_calls  TEXT,                         -- JSON [ToolCall]
    created_at  INTEGER NOT NULL,
    UNIQUE (run_id, seq)
);
INSERT INTO run_turns_new (run_id, seq, role, content, latency_ms, tokens_in, tokens_out, tool_calls, created_at)
    SELECT run_id, seq, role, content, latency_ms, tokens_in, tokens_out, tool_calls, created_at
    FROM run_turns ORDER BY rowid;
DROP TABLE run_turns;
ALTER TABLE run_turns_new RENAME TO run_turns;

CREATE INDEX runs_campaign_seq ON runs(campaign_id, seq);
DROP INDEX runs_campaign;

CREATE INDEX runs_open ON runs(status, scheduled_at, seq) WHERE status != 'done';
DROP INDEX runs_due_order;
