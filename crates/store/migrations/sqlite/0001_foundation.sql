-- Targets, scenarios, campaigns, runs and run turns.
-- Times are INTEGER milliseconds since the Unix epoch (UTC); ids are UUID v7
-- text; JSON columns hold versioned serde structures validated by the engine.

CREATE TABLE targets (
    id              TEXT PRIMARY KEY NOT NULL,
    name            TEXT NOT NULL,
    channel         TEXT NOT NULL,            -- JSON ChannelConfig, secrets never in clear
    concurrency     INTEGER NOT NULL DEFAULT 4,
    rate_per_second REAL,                     -- NULL = unlimited
    timeout_ms      INTEGER NOT NULL DEFAULT 15000,
    max_retries     INTEGER NOT NULL DEFAULT 2,
    price_in_per_mtok  REAL NOT NULL DEFAULT 0,
    price_out_per_mtok REAL NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

CREATE TABLE scenarios (
    id            TEXT PRIMARY KEY NOT NULL,  -- stable id from the file
    pack          TEXT NOT NULL,
    title         TEXT NOT NULL,
    tags          TEXT NOT NULL,              -- JSON array of strings
    definition    TEXT NOT NULL,              -- JSON Scenario
    source_file   TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    loaded_at     INTEGER NOT NULL
);

CREATE TABLE campaigns (
    id                   TEXT PRIMARY KEY NOT NULL,
    name                 TEXT NOT NULL,
    target_id            TEXT NOT NULL REFERENCES targets(id),
    status               TEXT NOT NULL,       -- draft | scheduled | running | finalized | cancelled
    window_start         INTEGER NOT NULL,
    window_end           INTEGER NOT NULL,
    time_scale           REAL NOT NULL DEFAULT 1,
    plan                 TEXT NOT NULL,       -- JSON Plan
    previous_campaign_id TEXT REFERENCES campaigns(id),
    finalized_at         INTEGER,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
);
CREATE INDEX campaigns_target ON campaigns(target_id, created_at);
CREATE INDEX campaigns_status ON campaigns(status);

CREATE TABLE runs (
    id              TEXT PRIMARY KEY NOT NULL,
    campaign_id     TEXT NOT NULL REFERENCES campaigns(id),
    scenario_id     TEXT NOT NULL,
    scenario_hash   TEXT NOT NULL,
    seq             INTEGER NOT NULL,         -- order within the campaign plan
    offset_ms       INTEGER NOT NULL,         -- campaign-time offset from window start
    scheduled_at    INTEGER NOT NULL,         -- real time when due
    status          TEXT NOT NULL,            -- pending | running | done
    verdict         TEXT,                     -- passed | failed | error (when done)
    check_results   TEXT,                     -- JSON [CheckResult]
    metrics         TEXT,                     -- JSON RunMetrics
    error_reason    TEXT,
    started_at      INTEGER,
    finished_at     INTEGER,
    created_at      INTEGER NOT NULL,
    UNIQUE (campaign_id, seq)
);
CREATE INDEX runs_due ON runs(status, scheduled_at);
CREATE INDEX runs_campaign ON runs(campaign_id, finished_at);

CREATE TABLE run_turns (
    id          TEXT PRIMARY KEY NOT NULL,
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

